package actors

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/configs"
)

// fleetState keeps the fleet block and its metrics.
type fleetState struct {
	revision prometheus.Gauge
	rejected prometheus.Counter

	mu     sync.Mutex
	status status.FleetStatus
}

// StartOption sets up a Daemon before Start serves /status and takes messages.
type StartOption func(*Daemon)

// WithFleet is StartFleet as a StartOption: the fleet block is on /status from the
// first answer.
func WithFleet(bucket, host string, revision uint64) StartOption {
	return func(d *Daemon) { d.StartFleet(bucket, host, revision) }
}

// StartFleet says that device files come from a fleet bucket, and which revision
// of it (0: none) the config edged started with holds, read from the copy on disk.
// Call it once, before the first ApplyFleet; a daemon that runs with a fleet
// bucket gets it from Start (WithFleet).
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
		status: status.FleetStatus{Bucket: bucket, Host: host, Revision: revision, FromDisk: revision > 0},
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
func (d *Daemon) Fleet() *status.FleetStatus {
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
	f.status.Rejected = &status.FleetRejection{Revision: revision, Error: err.Error(), At: time.Now().UnixMilli()}
	f.mu.Unlock()
}

// configStatus is the config block of /status: the reload's, with the fleet's.
func (d *Daemon) configStatus() *status.ConfigStatus {
	st := d.reload.snapshot()
	st.Fleet = d.Fleet()
	return st
}
