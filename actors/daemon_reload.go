package actors

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/mqtt"
)

// ErrNeedsRestart marks a new config that edged cannot apply while running.
var ErrNeedsRestart = errors.New("needs a restart of edged")

// Reload applies a new daemon config (the daemon file and its device files). A
// change to the daemon file itself cannot be applied live: the reload is refused
// whole with ErrNeedsRestart naming the settings, and the running config stays.
func (d *Daemon) Reload(ctx context.Context, cfg *configs.Daemon) (*configs.DeviceDiff, error) {
	d.applyMu.Lock()
	defer d.applyMu.Unlock()
	if names := configs.RestartNeeded(d.cfg, cfg); len(names) > 0 {
		err := fmt.Errorf("%s changed in %s: %w; the running config stays", names, cfg.Path, ErrNeedsRestart)
		d.reload.record(d.log, nil, err, names, reloadTimes{})
		return nil, err
	}
	return d.applyLocked(ctx, cfg.Devices)
}

// Refuse records a config that could not be loaded (a YAML or validation error):
// it is logged, counted and shown on /status, and the running config stays.
func (d *Daemon) Refuse(err error) {
	d.applyMu.Lock()
	defer d.applyMu.Unlock()
	d.reload.record(d.log, nil, err, nil, reloadTimes{})
}

// Apply makes devices the running set of device configs without a restart. They
// need not come from disk (a fleet config store can hand them over) but must be
// complete: ParseDevice or Load applied their defaults. Unchanged devices are not
// touched. A removed or changed device stops taking messages, commits and
// acknowledges what it took, and its pipeline stops; changed and added devices then
// start from their saved state, like after a restart, except that windows whose
// definition changed (configs.DeviceChange.Discard) lose their saved state first.
// A removed device's state stays in the store and is resumed if it comes back.
// Meanwhile the messages of the devices replaced are held in memory, unacknowledged,
// and handed to their new pipelines in order; other devices take theirs as usual.
// An error leaves the running config as it was; ctx bounds the wait for in-flight
// messages.
func (d *Daemon) Apply(ctx context.Context, devices []*configs.Device) (*configs.DeviceDiff, error) {
	d.applyMu.Lock()
	defer d.applyMu.Unlock()
	return d.applyLocked(ctx, devices)
}

func (d *Daemon) applyLocked(ctx context.Context, devices []*configs.Device) (*configs.DeviceDiff, error) {
	start := time.Now()
	diff, held, err := d.swap(ctx, devices)
	var restart []string
	if errors.Is(err, ErrNeedsRestart) {
		restart = []string{"broker session"}
	}
	d.reload.record(d.log, diff, err, restart, reloadTimes{took: time.Since(start), held: held})
	return diff, err
}

// swap checks devices, then replaces the pipelines of the devices that changed. It
// returns how long their messages were held.
func (d *Daemon) swap(ctx context.Context, devices []*configs.Device) (_ *configs.DeviceDiff, held time.Duration, err error) {
	t := d.topo
	if t.router.closing.Load() {
		return nil, 0, errors.New("edged is stopping")
	}
	next := *d.cfg
	next.Devices = devices
	if err := next.Validate(); err != nil {
		return nil, 0, err
	}
	if persistentSession(d.cfg.Devices) != persistentSession(devices) {
		return nil, 0, fmt.Errorf("the broker session is persistent only while some stream has qos 1; "+
			"adding the first or removing the last such stream %w", ErrNeedsRestart)
	}
	diff := configs.DiffDevices(d.cfg.Devices, devices)
	plans := map[string]*plan{}
	for _, dev := range devices {
		if !slices.Contains(diff.Unchanged, dev.ID) {
			p, err := compile(dev, d.cfg.Limits.MaxKeyBytes)
			if err != nil {
				return nil, 0, err
			}
			plans[dev.ID] = p
		}
	}
	if diff.Empty() {
		d.cfg = &next // file names may have changed
		return diff, 0, nil
	}

	leaving := slices.Concat(diff.Removed, diff.Changed)
	heldAt := time.Now()
	holds, err := t.router.holdDevices(ctx, leaving)
	if err != nil {
		return nil, 0, err
	}
	releaseAll := func() {
		for _, h := range holds {
			t.router.release(h)
		}
	}
	running := map[string]routedDevice{}
	t.mu.RLock()
	for _, rd := range t.router.devices {
		running[rd.plan.device.ID] = rd
	}
	t.mu.RUnlock()
	if err := d.drainDevices(ctx, running, leaving); err != nil {
		releaseAll()
		return nil, 0, err
	}
	// From here on the old pipelines are gone; what follows only fails on a
	// broken store or actor system, and then the old pipelines come back.
	for _, id := range leaving {
		_ = t.system.Root.StopFuture(running[id].pid).Wait()
	}
	if err := d.discardState(diff); err != nil {
		d.restart(running, leaving)
		releaseAll()
		return nil, 0, err
	}
	d.forgetSeries(diff) // before the new pipelines make series of their own
	started, err := d.startDevices(devices, plans, holds)
	if err != nil {
		d.restart(running, leaving)
		releaseAll()
		return nil, 0, err
	}
	d.install(devices, running, started)
	d.cfg = &next
	releaseAll()
	held = time.Since(heldAt)

	if d.client != nil {
		// After the swap: a message on a new filter must find its device. One on a
		// removed filter until the broker confirms is unmatched, as the device is gone.
		if err := d.client.SetSubscriptions(subscriptions(devices)); err != nil {
			d.log.Error("changing the broker subscriptions failed; the next reconnection subscribes as configured", "err", err)
		}
	}
	return diff, held, nil
}

// startDevices starts the pipelines of the devices in plans; each takes over the
// messages held for its device. On an error none is left running.
func (d *Daemon) startDevices(devices []*configs.Device, plans map[string]*plan, holds map[string]*holdQueue) (map[string]routedDevice, error) {
	t := d.topo
	started := map[string]routedDevice{}
	for _, dev := range devices {
		p := plans[dev.ID]
		if p == nil {
			continue
		}
		pid, rd, err := t.spawnDevice(p, d.cfg.Limits)
		if err != nil {
			for _, s := range started {
				_ = t.system.Root.StopFuture(s.pid).Wait()
			}
			return nil, err
		}
		rd.pid, rd.hold = pid, holds[dev.ID]
		started[dev.ID] = rd
	}
	return started, nil
}

// install makes the router and the ticks see devices, in config order: the ones
// started anew, and the running ones otherwise.
func (d *Daemon) install(devices []*configs.Device, running, started map[string]routedDevice) {
	t := d.topo
	var pids []*actor.PID
	var routed []routedDevice
	for _, dev := range devices {
		rd, ok := started[dev.ID]
		if !ok {
			rd = running[dev.ID]
		}
		pids = append(pids, rd.pid)
		routed = append(routed, rd)
	}
	t.router.gate <- struct{}{}
	t.mu.Lock()
	t.pipelines, t.router.devices = pids, routed
	t.mu.Unlock()
	<-t.router.gate
}

// drainDevices commits and acknowledges every message the devices took. Their new
// messages are held, so they take no more; one routed just before may still be on
// its way to a source, hence the loop.
func (d *Daemon) drainDevices(ctx context.Context, running map[string]routedDevice, ids []string) error {
	t := d.topo
	poll := time.NewTicker(tickEvery)
	defer poll.Stop()
	for _, id := range ids {
		rd := running[id]
		if _, ok := t.system.ProcessRegistry.GetLocal(rd.pid.Id); !ok {
			continue // stopped after repeated failures: nothing of it will commit
		}
		for {
			if err := d.flushDevice(ctx, rd.pid); err != nil {
				return fmt.Errorf("device %s: committing what it took: %w", id, err)
			}
			if rd.inflight.Load() == 0 {
				break
			}
			select {
			case <-poll.C:
			case <-ctx.Done():
				return fmt.Errorf("device %s still has %d messages not committed: %w", id, rd.inflight.Load(), ctx.Err())
			}
		}
	}
	// Results and late records of those commits may still be on their way to a
	// broker: the sink holds their confirmations until the new pipeline takes the
	// queue, the uplink deletes what it delivers itself, and the confirmations sent
	// before are committed by a last flush.
	for _, id := range ids {
		if _, ok := t.system.ProcessRegistry.GetLocal(running[id].pid.Id); !ok {
			continue
		}
		done := make(chan struct{})
		t.system.Root.Send(t.env.sink, &detachQueue{queue: commit.ResultsQueue(id), done: done})
		if err := waitDone(ctx, done); err != nil {
			return err
		}
		if t.env.late != nil {
			done := make(chan struct{})
			t.system.Root.Send(t.env.late, &outbox.Detach{Queue: outbox.UpstreamQueue(id), Done: done})
			if err := waitDone(ctx, done); err != nil {
				return err
			}
		}
		if err := d.flushDevice(ctx, running[id].pid); err != nil {
			return fmt.Errorf("device %s: committing its published results: %w", id, err)
		}
	}
	return nil
}

func (d *Daemon) flushDevice(ctx context.Context, pid *actor.PID) error {
	done := make(chan struct{})
	d.topo.system.Root.Send(pid, &FlushNow{Done: done})
	return waitDone(ctx, done)
}

// waitDone waits until done is closed or ctx ends.
func waitDone(ctx context.Context, done chan struct{}) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// discardState deletes the saved state of the windows that start fresh.
func (d *Daemon) discardState(diff *configs.DeviceDiff) error {
	for _, id := range diff.Changed {
		for _, w := range diff.Devices[id].Discard {
			n, err := d.store.DeleteWindowState(id, w)
			if err != nil {
				return err
			}
			d.log.Warn("window definition changed or removed; its saved state is deleted and it starts empty",
				"device", id, "window", w, "keys_deleted", n)
		}
	}
	return nil
}

// restart brings back the stopped pipelines of the running config after a failed
// swap; they restore from the store as after a crash.
func (d *Daemon) restart(running map[string]routedDevice, ids []string) {
	t := d.topo
	t.router.gate <- struct{}{}
	defer func() { <-t.router.gate }()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range ids {
		pid, rd, err := t.spawnDevice(running[id].plan, d.cfg.Limits)
		if err != nil {
			d.log.Error("restarting a device after a failed reload", "device", id, "err", err)
			continue
		}
		rd.pid, rd.hold = pid, running[id].hold
		for i := range t.router.devices {
			if t.router.devices[i].plan.device.ID == id {
				t.router.devices[i], t.pipelines[i] = rd, pid
			}
		}
	}
}

// forgetSeries drops the metric series of removed devices and of removed windows
// and windows that start empty, so /status and /metrics stop showing them (a window
// starting empty counts from zero).
func (d *Daemon) forgetSeries(diff *configs.DeviceDiff) {
	for _, id := range diff.Removed {
		d.metrics.forget(map[string]string{"device": id})
	}
	for _, id := range diff.Changed {
		for _, w := range diff.Devices[id].Discard {
			d.metrics.forget(map[string]string{"device": id, "window": w})
		}
	}
}

// subscriptions is what the broker client subscribes to for devices.
func subscriptions(devices []*configs.Device) []mqtt.Subscription {
	var subs []mqtt.Subscription
	for _, dev := range devices {
		for _, s := range dev.Streams {
			subs = append(subs, mqtt.Subscription{Filter: s.Topic, QoS: s.QoS})
		}
	}
	return subs
}

// persistentSession is whether the broker keeps edged's session: it does once a
// stream asks for QoS 1, so unacknowledged messages survive a crash of edged.
func persistentSession(devices []*configs.Device) bool {
	for _, dev := range devices {
		for _, s := range dev.Streams {
			if s.QoS > 0 {
				return true
			}
		}
	}
	return false
}
