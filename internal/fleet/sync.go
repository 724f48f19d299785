package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/natsjs"
)

const (
	// debounce is the quiet time after a change in the bucket before it is
	// applied: `edged fleet push` writes one key per file, and a set of files
	// pushed together should be one reload.
	debounce = 200 * time.Millisecond
	// retry is the pause before opening or watching the bucket again.
	retry = 2 * time.Second
	// heartbeat is how often edged writes its status key even when nothing
	// changed, so `edged fleet status` shows a gateway that stopped reporting.
	heartbeat = 30 * time.Second
)

// Daemon is what Sync needs of the running daemon (*actors.Daemon): the package
// stays below actors, which only cmd/ and testing/ import.
type Daemon interface {
	ApplyFleet(ctx context.Context, devices []*configs.Device, revision uint64) (*configs.DeviceDiff, error)
	RejectFleet(revision uint64, err error)
	FleetClean()
	Fleet() *status.FleetStatus
	Health() (ok bool, status string)
}

// Sync runs the device files of a fleet bucket on this gateway: it watches
// the gateway's keys and the shared ones, validates every revision as a local
// file, hands a valid set to the daemon with the local device files, keeps the
// last good set in data_dir, and writes what it applied to the status key.
//
// Apply runs on the loop that also reloads the local device files, so the two
// sets are combined by one goroutine.
type Sync struct {
	k       configs.FleetKV
	keys    configs.FleetKeys
	dataDir string
	log     *slog.Logger
	d       Daemon
	version string // edged's, in the status key

	latest map[string]natsjs.Entry // the newest revision seen of each key, deletes included
	good   map[string]Entry        // the device files applied, by key
	// ignored holds the revisions that did not validate, by key: reported once,
	// and left out until a newer revision of the key comes.
	ignored map[string]uint64
	keptRev uint64 // the revision of the copy edged started with
	// daemon is the daemon file as at start (a reload cannot change it), to check
	// a set of device files with it before applying them.
	daemon configs.Daemon

	pub     *natsjs.Publisher
	updates chan []natsjs.Entry
	report  chan struct{} // a status to write; holds one
}

// newSync reads the last good copy in data_dir. It returns the fleet's device
// files to start with; a copy that cannot be used is logged and left out.
func newSync(cfg *configs.Daemon, log *slog.Logger) (*Sync, []*configs.Device) {
	f := &Sync{daemon: *cfg, k: cfg.Fleet.KV, keys: configs.FleetKeys{Prefix: cfg.Fleet.KV.Prefix}, dataDir: cfg.DataDir,
		log: log.With("fleet_bucket", cfg.Fleet.KV.Bucket), latest: map[string]natsjs.Entry{}, good: map[string]Entry{}, ignored: map[string]uint64{},
		updates: make(chan []natsjs.Entry), report: make(chan struct{}, 1)}
	c, err := readCopy(cfg.DataDir, f.k)
	if err != nil {
		f.log.Error("not starting with the last fleet device files kept on disk; waiting for the bucket", "err", err)
	}
	if c == nil {
		return f, nil
	}
	for _, e := range c.Files {
		f.good[e.Key] = e
	}
	f.keptRev = c.Revision
	f.log.Info("starting with the fleet device files kept on disk", "revision", c.Revision, "files", len(c.Files))
	return f, f.devices(f.good)
}

// revision is the highest revision of the entries applied and the deletes seen.
func (f *Sync) revision(good map[string]Entry) uint64 {
	var rev uint64
	for _, e := range good {
		rev = max(rev, e.Revision)
	}
	for _, e := range f.latest {
		if e.Deleted {
			rev = max(rev, e.Revision)
		}
	}
	return rev
}

// devices are the device files of entries in key order. A file the gateway has
// under its own key replaces the shared file of the same name.
func (f *Sync) devices(entries map[string]Entry) []*configs.Device {
	own := map[string]bool{}
	for key := range entries {
		if host, file, _ := f.keys.File(key); host != configs.FleetAllHost {
			own[file] = true
		}
	}
	var devs []*configs.Device
	for _, key := range slices.Sorted(maps.Keys(entries)) {
		if host, file, _ := f.keys.File(key); host == configs.FleetAllHost && own[file] {
			continue
		}
		devs = append(devs, entries[key].dev)
	}
	return devs
}

// Devices is the fleet's part of the running config, for a reload of the local files.
func (f *Sync) Devices() []*configs.Device { return f.devices(f.good) }

// Started is what the daemon is started with (actors.WithFleet): the bucket, this
// gateway's host in it, and the revision of the kept copy its config holds (0: none).
func (f *Sync) Started() (bucket, host string, revision uint64) {
	return f.k.Bucket, f.k.Host, f.keptRev
}

// Start connects to the bucket and watches it until ctx ends; changes arrive,
// debounced, on the returned channel for Apply. version is edged's, for the
// status key. d was started with Started.
func (f *Sync) Start(ctx context.Context, d Daemon, version string) (<-chan []natsjs.Entry, error) {
	f.d, f.version = d, version
	pub, err := Dial(f.k, "edged-"+f.k.Host+"-fleet", f.log)
	if err != nil {
		return nil, err
	}
	f.pub = pub
	go f.watch(ctx)
	go f.writeStatus(ctx)
	return f.updates, nil
}

// Close ends the connection to the bucket.
func (f *Sync) Close() {
	if f.pub != nil {
		f.pub.Close()
	}
}

// watch sends the bucket's initial values once all arrived, then each change after
// debounce of quiet. A broken watch is started again; its initial values are
// sent again, and Apply ignores what did not change.
func (f *Sync) watch(ctx context.Context) {
	reported := false
	for ctx.Err() == nil {
		err := f.watchOnce(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, errWatchEnded):
			// After a reconnection: watch again at once.
			f.log.Info("watching the fleet bucket again", "reason", err)
			reported = false
			continue
		case !reported || !errors.Is(err, natsjs.ErrNoBucket):
			f.log.Error("reading the fleet bucket; the running device files stay, retrying", "err", err)
		}
		reported = errors.Is(err, natsjs.ErrNoBucket)
		select {
		case <-ctx.Done():
		case <-time.After(retry):
		}
	}
}

// errWatchEnded is a watch that ended after its initial values: the connection
// came back, or the server dropped the watch.
var errWatchEnded = errors.New("the watch ended (NATS reconnected, or the server dropped it)")

func (f *Sync) watchOnce(ctx context.Context) error {
	kv, err := OpenBucket(ctx, f.pub, f.k.Bucket, false)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := kv.Watch(ctx, f.keys.Devices(f.k.Host), f.keys.Shared())
	if err != nil {
		return err
	}
	var batch []natsjs.Entry
	initial := true
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	send := func() bool {
		select {
		case f.updates <- batch:
			batch = nil
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		select {
		case e, ok := <-ch:
			switch {
			case !ok && initial:
				return errors.New("the watch of the fleet bucket ended before its initial values")
			case !ok:
				return errWatchEnded
			case e.Key == "":
				initial = false
				if !send() {
					return ctx.Err()
				}
			default:
				batch = append(batch, e)
				if !initial {
					quiet.Reset(debounce)
				}
			}
		case <-quiet.C:
			if !send() {
				return ctx.Err()
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Apply makes the newest valid revision of every key run, with local, the device
// files from devices_dir. A revision that does not validate is ignored and
// reported, its key keeping the revision applied before; if the whole set is
// refused, nothing changes. Every later change tries the newest revisions again.
// ctx bounds the wait for the changed devices' messages in flight to be committed.
func (f *Sync) Apply(ctx context.Context, batch []natsjs.Entry, local []*configs.Device) {
	for _, e := range batch {
		if e.Revision > f.latest[e.Key].Revision {
			f.latest[e.Key] = e
		}
	}
	next := map[string]Entry{}
	var invalid []error // newly ignored revisions
	var invalidRev uint64
	ignoring := false
	for _, key := range slices.Sorted(maps.Keys(f.latest)) { // errors in key order
		e := f.latest[key]
		g, had := f.good[key]
		switch {
		case e.Deleted:
			continue
		case had && g.Revision == e.Revision:
			next[key] = g
			continue
		}
		var dev *configs.Device
		var err error
		if _, _, ok := f.keys.File(key); !ok {
			err = errors.New(key + ": not a device file key: the name after .devices. must end in .yaml or .yml")
		} else {
			dev, err = configs.ParseDevice(key, e.Value)
		}
		if err != nil {
			ignoring = true
			if f.ignored[key] != e.Revision {
				f.ignored[key] = e.Revision
				invalid = append(invalid, err)
				invalidRev = max(invalidRev, e.Revision)
			}
			if had {
				next[key] = g
			}
			continue
		}
		delete(f.ignored, key)
		next[key] = Entry{Key: key, Revision: e.Revision, Data: string(e.Value), dev: dev}
	}
	// A new revision that is fine alone may not fit the set: a device id already
	// taken, upstream_results without an upstream. It is ignored like an invalid
	// one, so it does not hold back the other keys.
	for {
		blamed := f.misfits(local, next)
		if len(blamed) == 0 {
			break
		}
		for key, errs := range blamed {
			ignoring = true
			if e := f.latest[key]; f.ignored[key] != e.Revision {
				f.ignored[key] = e.Revision
				invalid = append(invalid, errs)
				invalidRev = max(invalidRev, e.Revision)
			}
			if g, had := f.good[key]; had {
				next[key] = g
			} else {
				delete(next, key)
			}
		}
	}
	if len(invalid) > 0 {
		f.d.RejectFleet(invalidRev, errors.Join(invalid...))
	}
	rev := f.revision(next)
	if st := f.d.Fleet(); sameEntries(next, f.good) && st.Revision == rev && !st.FromDisk {
		if !ignoring {
			f.d.FleetClean()
		}
		f.signal()
		return
	}
	if _, err := f.d.ApplyFleet(ctx, slices.Concat(local, f.devices(next)), rev); err != nil {
		f.signal() // the daemon logged and recorded it
		return
	}
	f.good = next
	if !ignoring {
		f.d.FleetClean()
	}
	c := &Copy{Bucket: f.k.Bucket, Prefix: f.k.Prefix, Host: f.k.Host, Revision: rev}
	for _, key := range slices.Sorted(maps.Keys(next)) {
		c.Files = append(c.Files, next[key])
	}
	if err := WriteCopy(f.dataDir, c); err != nil {
		f.log.Error("keeping the fleet device files on disk failed: a restart without the bucket starts with an older set", "err", err)
	}
	f.signal()
}

// misfits validates local and next's device files with the daemon file, and
// returns the errors of the entries of next not applied yet, by key.
func (f *Sync) misfits(local []*configs.Device, next map[string]Entry) map[string]error {
	d := f.daemon
	d.Devices = slices.Concat(local, f.devices(next))
	var errs configs.Errors
	if !errors.As(d.Validate(), &errs) {
		return nil
	}
	blamed := map[string]error{}
	for _, e := range errs {
		n, ok := next[e.File]
		if g, had := f.good[e.File]; !ok || had && g.Revision == n.Revision {
			continue // a local file or one applied already: the set is refused whole
		}
		blamed[e.File] = errors.Join(blamed[e.File], e)
	}
	return blamed
}

func sameEntries(a, b map[string]Entry) bool {
	return maps.EqualFunc(a, b, func(x, y Entry) bool { return x.Revision == y.Revision })
}

// signal asks writeStatus to write the status key now.
func (f *Sync) signal() {
	select {
	case f.report <- struct{}{}:
	default:
	}
}

// Report is what edged writes to {prefix}.{host}.status.
type Report struct {
	Host      string                 `json:"host"`
	Revision  uint64                 `json:"revision"`
	AppliedAt int64                  `json:"applied_at,omitempty"`
	Rejected  *status.FleetRejection `json:"rejected,omitempty"`
	Healthy   bool                   `json:"healthy"`
	Health    string                 `json:"health"`
	Version   string                 `json:"version"`
	At        int64                  `json:"at"` // ms since the epoch
}

// writeStatus writes the status key after every apply and every heartbeat.
func (f *Sync) writeStatus(ctx context.Context) {
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	var kv *natsjs.KV
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-f.report:
		}
		st := f.d.Fleet()
		ok, health := f.d.Health()
		r := Report{Host: f.k.Host, Revision: st.Revision, AppliedAt: st.AppliedAt, Rejected: st.Rejected,
			Healthy: ok, Health: health, Version: f.version, At: time.Now().UnixMilli()}
		data, _ := json.Marshal(r)
		opCtx, cancel := context.WithTimeout(ctx, ackTimeout)
		var err error
		if kv == nil {
			kv, err = OpenBucket(opCtx, f.pub, f.k.Bucket, false)
		}
		if err == nil {
			_, err = kv.Put(opCtx, f.keys.Status(f.k.Host), data)
		}
		cancel()
		if err != nil && ctx.Err() == nil {
			f.log.Warn("writing this gateway's status to the fleet bucket failed; trying again at the next change or heartbeat", "err", err)
		}
	}
}

// Prepare prepares a gateway with fleet.kv: the last good fleet device files
// join cfg's local ones. It returns the sync (nil without fleet.kv) and the local
// device files. A kept set that does not fit the local files (a device id in both)
// is left out, and the bucket decides.
func Prepare(cfg *configs.Daemon, log *slog.Logger) (*Sync, []*configs.Device) {
	local := cfg.Devices
	if !cfg.Fleet.KV.Enabled() {
		return nil, local
	}
	f, kept := newSync(cfg, log)
	cfg.Devices = slices.Concat(local, kept)
	if err := cfg.Validate(); err != nil {
		f.log.Error("the fleet device files kept on disk do not fit the local ones; starting without them", "err", err)
		cfg.Devices, f.good, f.keptRev = local, map[string]Entry{}, 0
	}
	return f, local
}
