package actors

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

// Keys come and go: tags, vehicles, beacons. A window actor lives while its key has
// something to do, as protoactor's virtual actors and Orleans' grains do: once its
// key holds no window and nothing uncommitted (window_passivate.go) for the window
// definition's passivate_after, the pipeline stops it, and the key's next reading
// starts it again. Limits, ticks and flushes then follow the keys alive, not every
// key ever seen.
//
// A passivated key keeps nothing in memory, and the output does not change:
//   - Its windows are all purged and committed, so a new actor starts with none;
//     so are the tombs of its session starts (windows/tombs.go), which it keeps
//     only while a late reading could still revive one.
//   - Its valve has one input (window_passivate.go's quietShape): that stream's
//     watermark, which is history-free. If every key of the window is fed by one
//     concrete topic (soleFed), the next reading comes from that topic and carries
//     its current status, which is all the valve would hold: nothing is kept, and
//     the saved valve is deleted. Otherwise the saved valve names the input, and a
//     key that comes back from another topic first takes that input's current
//     status (reactivate), as the actor would have had it.
//   - Its dedup marks are in the store, which a new actor reads as the old did.
//
// The handshake keeps every message: the pipeline asks each source that feeds the
// key to stop sending to it (unbind); each answers the window actor itself, after
// whatever it sent before; the window actor then says whether it is still quiet
// (keyPassivated) or not (keyStaying). A record routed to it through the pipeline
// meanwhile, or a binding, keeps it alive; otherwise the pipeline stops it, and the
// next record of the key goes through the pipeline, which starts a new one.

// quietKey is a quiet window actor waiting out its passivation delay, with the
// activity it reported quiet at.
type quietKey struct {
	k        *keyRef
	activity uint32
}

// passivateDelay is how long a quiet key of window definition win stays.
func (p *pipeline) passivateDelay(win int) int64 {
	if d := p.env.passivateDelay; d != nil {
		return d(win)
	}
	return p.plan.windows[win].passivateAfter
}

func (p *pipeline) onKeyQuiet(m *keyQuiet) {
	if k := p.keys[m.id]; k != nil && !k.passivating {
		if d := p.passivateDelay(m.id.win); d >= 0 {
			p.quietKeys.add(p.now+d, quietKey{k, m.activity})
		}
	}
}

// passivateKeys asks every quiet key whose delay is over whether it still is.
func (p *pipeline) passivateKeys(ctx actor.Context, now int64) {
	for {
		t, _, ok := p.quietKeys.pop(now)
		if !ok {
			return
		}
		k := t.k
		if p.keys[k.id()] != k || k.passivating {
			continue // passivated already, or asked
		}
		if k.touched || k.early {
			// Records or an early firing are on their way to it; it reports again if
			// it is still quiet after them.
			continue
		}
		k.passivating, k.disturbed, k.quietAt = true, false, t.activity
		ctx.Send(k.pid, &passivateQuery{activity: t.activity})
	}
}

// onKeyReady has the sources of a key that is still quiet stop sending to it.
func (p *pipeline) onKeyReady(ctx actor.Context, m *keyReady) {
	k := p.keys[m.id]
	if k == nil || !k.passivating {
		return
	}
	if k.disturbed || k.touched || k.early {
		p.keepKey(ctx, k)
		return
	}
	var n int32
	for s := range k.streams.all() {
		if h := p.liveSource(s); h != nil {
			ctx.Send(h.pid, &unbind{id: k.id(), pid: k.pid})
			n++
		}
	}
	ctx.Send(k.pid, &passivate{activity: k.quietAt, unbinds: n})
}

func (p *pipeline) onKeyStaying(ctx actor.Context, m *keyStaying) {
	k := p.keys[m.id]
	if k == nil || !k.passivating {
		return
	}
	p.keepKey(ctx, k)
	if d := p.passivateDelay(m.id.win); m.retry && d >= 0 {
		// Its last flush is not committed yet: ask again after the delay.
		p.quietKeys.add(p.now+d, quietKey{k, m.activity})
	}
}

// keepKey ends a handshake that did not passivate k: its sources send to it again
// (those asked to stop; the others ignore a binding they have).
func (p *pipeline) keepKey(ctx actor.Context, k *keyRef) {
	k.passivating = false
	for s := range k.streams.all() {
		if h := p.liveSource(s); h != nil {
			p.disturb(s)
			ctx.Send(h.pid, &keyBound{id: k.id(), pid: k.pid})
		}
	}
}

func (p *pipeline) onKeyPassivated(ctx actor.Context, m *keyPassivated) {
	k := p.keys[m.id]
	if k == nil || !k.passivating {
		return
	}
	if k.disturbed || k.touched || k.early {
		p.keepKey(ctx, k)
		return
	}
	ctx.Stop(k.pid)
	delete(p.keys, m.id)
	for s := range k.streams.all() {
		p.fedBy.remove(s, k)
	}
	p.keyCount[m.id.win]--
	wp := &p.plan.windows[m.id.win]
	p.env.metrics.Keys.WithLabelValues(p.plan.device.ID, wp.cfg.Name).Set(float64(p.keyCount[m.id.win]))
	p.env.metrics.Passivations.WithLabelValues(p.plan.device.ID, wp.cfg.Name).Inc()
	if wp.soleFed {
		// Nothing of the key is needed to start it again; its saved valve goes, so
		// the store keeps only what live keys need. Sent ahead of the next flush:
		// a new actor of the key saves its valve in a reply to that flush or a later
		// one, which the committer applies after this.
		u := commit.NewUnit()
		u.DropValve = &commit.ValveDrop{Device: p.plan.device.ID, Window: wp.cfg.Name, Key: m.id.key}
		p.sendAhead(ctx, u)
	}
}

// sendAhead hands the committer a unit of the next epoch now, before its flush.
func (p *pipeline) sendAhead(ctx actor.Context, u *unit) {
	p.ahead++
	ctx.Send(p.committer, &Flushed{Epoch: p.epoch + 1, Units: []*unit{u}})
}

// reactivate starts again the window actor of a passivated key (or one not restored
// at start because it held no window) from its saved valve, or returns nil if it has
// none: a key of a soleFed window needs none, and a key never seen has none. A valve
// of one input takes that stream's current status first, as the actor that never
// stopped would have heard it; the record that brings it back follows. A valve of
// several (a key saved by an edged that did not passivate, or not restored at start)
// comes back as after a restart.
func (p *pipeline) reactivate(ctx actor.Context, id keyID) *keyRef {
	wp := &p.plan.windows[id.win]
	if wp.soleFed {
		return nil
	}
	states, corrupt, err := p.env.store.LoadKeys(p.plan.device.ID, []persist.KeyName{{Window: wp.cfg.Name, Key: id.key}})
	if err != nil {
		// Without its state a key would count records twice; stop the device loudly.
		panic(fmt.Errorf("loading state of device %s: %w", p.plan.device.ID, err))
	}
	p.env.metrics.Unreadable.WithLabelValues(p.plan.device.ID).Add(float64(len(corrupt)))
	ks := states[0]
	if ks == nil {
		return nil
	}
	k := p.startKey(ctx, id, ks)
	if len(ks.Valve) == 1 {
		// Before the record that brings it back: the actor that never stopped heard
		// it, and it may have moved the valve since it was saved.
		in := ks.Valve[0].Input
		if st, ok := p.streamStatus(in); ok {
			ctx.Send(k.pid, &WatermarkEmitted{Stream: in, Status: st, At: p.now})
		}
	}
	return k
}

// streamStatus returns the status a stream's window actors last heard from it: its
// source's, or, for a passivated stream, its saved state's at the last source tick.
func (p *pipeline) streamStatus(topic string) (watermark.Status, bool) {
	if h := p.liveSource(topic); h != nil {
		st := h.status()
		if z := h.sleep.Load(); z != nil {
			// The checks it skipped would have sent what the drift says.
			st.Watermark = max(st.Watermark, z.drift.At(p.sourceTicked.Load()))
		}
		return st, true
	}
	st, ok, err := p.env.store.LoadStreamState(p.plan.device.ID, topic)
	if err != nil || !ok {
		return watermark.Status{}, false
	}
	if up, started := p.uptime.at(p.sourceTicked.Load()); started {
		st = st.Drifted(up)
	}
	return watermark.Status{Watermark: st.Watermark, Idle: st.Idle}, true
}
