package actors

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/configs"
)

// FleetStatus is the fleet block of /status's config: which revision of the fleet
// bucket's device files runs, and the latest one ignored.
type FleetStatus struct {
	Bucket string `json:"bucket"`
	Host   string `json:"host"`
	// Revision is the bucket revision of the device files applied: the highest
	// revision among this gateway's keys and the shared ones; 0 before the first.
	Revision  uint64 `json:"revision"`
	AppliedAt int64  `json:"applied_at,omitempty"` // ms since the epoch
	// FromDisk: the device files run from the last good copy in data_dir; the
	// bucket has not been read since the start.
	FromDisk bool            `json:"from_disk,omitempty"`
	Rejected *FleetRejection `json:"rejected,omitempty"`
}

// FleetRejection is a revision of the bucket that was not applied; the config
// applied before it stays.
type FleetRejection struct {
	Revision uint64 `json:"revision"`
	Error    string `json:"error"` // key:line: field: reason, as for a local file
	At       int64  `json:"at"`
}

// fleetState keeps the fleet block and its metrics.
type fleetState struct {
	revision prometheus.Gauge
	rejected prometheus.Counter

	mu     sync.Mutex
	status FleetStatus
}

// StartFleet says that device files come from a fleet bucket, and which revision
// of it (0: none) the config edged started with holds, read from the copy on disk.
// Call it once, before the first ApplyFleet.
func (d *Daemon) StartFleet(bucket, host string, revision uint64) {
	f := &fleetState{
		revision: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "edged_fleet_revision",
			Help: "The fleet bucket revision of the device files running (0: none yet).",
		}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "edged_fleet_rejected_total",
			Help: "Revisions of the fleet bucket's device files not applied (invalid, or refused by the reload); the config before them stays.",
		}),
		status: FleetStatus{Bucket: bucket, Host: host, Revision: revision, FromDisk: revision > 0},
	}
	d.metrics.Registry.MustRegister(f.revision, f.rejected)
	f.revision.Set(float64(revision))
	d.fleetMu.Lock()
	d.fleet = f
	d.fleetMu.Unlock()
}

// ApplyFleet applies devices, the local device files and those of the fleet
// bucket at revision, through the same step as a reload (Apply). If they are not
// applied the revision is recorded as rejected.
func (d *Daemon) ApplyFleet(ctx context.Context, devices []*configs.Device, revision uint64) (*configs.DeviceDiff, error) {
	diff, err := d.Apply(ctx, devices)
	f := d.fleetState()
	if err != nil {
		f.reject(revision, err)
		return diff, err
	}
	f.mu.Lock()
	f.status.Revision, f.status.AppliedAt, f.status.FromDisk = revision, time.Now().UnixMilli(), false
	f.mu.Unlock()
	f.revision.Set(float64(revision))
	return diff, nil
}

// RejectFleet records a revision of the bucket that cannot be applied (a device
// file that does not validate): logged, counted, and on /status.
func (d *Daemon) RejectFleet(revision uint64, err error) {
	d.Refuse(err)
	d.fleetState().reject(revision, err)
}

// FleetClean says that no revision of the bucket is being ignored any more.
func (d *Daemon) FleetClean() {
	f := d.fleetState()
	f.mu.Lock()
	f.status.Rejected = nil
	f.mu.Unlock()
}

// Fleet is the fleet block of the status, or nil without a fleet bucket.
func (d *Daemon) Fleet() *FleetStatus {
	f := d.fleetState()
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.status
	if st.Rejected != nil {
		r := *st.Rejected
		st.Rejected = &r
	}
	return &st
}

func (d *Daemon) fleetState() *fleetState {
	d.fleetMu.Lock()
	defer d.fleetMu.Unlock()
	return d.fleet
}

func (f *fleetState) reject(revision uint64, err error) {
	f.rejected.Inc()
	f.mu.Lock()
	f.status.Rejected = &FleetRejection{Revision: revision, Error: err.Error(), At: time.Now().UnixMilli()}
	f.mu.Unlock()
}

// configStatus is the config block of /status: the reload's, with the fleet's.
func (d *Daemon) configStatus() *ConfigStatus {
	st := d.reload.snapshot()
	st.Fleet = d.Fleet()
	return st
}
