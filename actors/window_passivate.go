package actors

import (
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// A window actor's side of passivation (pipeline_key_passivate.go has the pipeline's). A
// key with no window and nothing uncommitted tells the pipeline so once after a
// flush. When its delay is over the pipeline asks whether it still is; if so, the
// pipeline has its sources stop sending to it, and once every one has confirmed it,
// the actor says whether it is still as quiet. The pipeline stops it only if
// nothing was routed to it meanwhile.

// quietShape reports whether the actor holds nothing a passivated key would lose:
// no window and no tomb of a session start a late reading could still revive
// (Operator.Holds), nothing to write, no early firing or commit asked for, and a
// valve of one stream at most (a valve over several depends on the order their
// statuses came in, which a key that comes back cannot rebuild).
func (w *window) quietShape() bool {
	return !w.op.Holds(w.key) && w.dirty.len() == 0 && !(w.valveDirty && (w.fired || w.joined)) &&
		w.pending.Main() == nil && !w.earlyAsked && !w.resulted && !w.commitAsked && w.valve.Inputs() <= 1
}

// durable reports whether everything the actor flushed is committed.
func (w *window) durable() bool {
	for i := range w.gens {
		if !w.gens[i].durable() {
			return false
		}
	}
	return w.flushCommits == nil || w.flushCommits.Load() != w.flushSeen
}

// maybeQuiet tells the pipeline, once per quiet spell, that the key may be passivated.
func (w *window) maybeQuiet(ctx actor.Context) {
	if !w.quietSent && w.quietShape() {
		w.quietSent = true
		ctx.Send(ctx.Parent(), &keyQuiet{id: w.id(), activity: w.activity})
	}
}

// active notes a record or an early firing: a quiet spell, if any, is over.
func (w *window) active() {
	w.activity++ // wraps: compared for equality only
	w.quietSent = false
}

func (w *window) id() keyID { return keyID{w.plan.index, w.key} }

// flushedUnits notes the commit count of the units a flush took, for durable.
func (w *window) flushedUnits(units []*unit) {
	if len(units) == 0 {
		return
	}
	u := units[0] // a flush's units commit together
	if u.Commits == nil {
		u.Commits = new(atomic.Uint32) // before the send: the committer adds to it
	}
	w.flushCommits, w.flushSeen = u.Commits, u.Commits.Load()
}

// onQuery answers whether the key is still as quiet as it reported.
func (w *window) onQuery(ctx actor.Context, m *passivateQuery) {
	w.passivating = &passivate{activity: m.activity, unbinds: -1}
	w.answer(ctx)
}

// onPassivate and onUnbound answer the pipeline once it asked and every source
// confirmed; the answers arrive in either order.
func (w *window) onPassivate(ctx actor.Context, m *passivate) {
	w.passivating = m
	w.answer(ctx)
}

func (w *window) onUnbound(ctx actor.Context) {
	w.unbound++
	w.answer(ctx)
}

// answer answers the query, or the passivate once every source confirmed.
func (w *window) answer(ctx actor.Context) {
	m := w.passivating
	if m == nil || w.unbound < m.unbinds {
		return
	}
	w.passivating, w.unbound = nil, 0
	switch {
	case m.activity != w.activity || !w.quietShape():
		w.quietSent = false // it reports again after a flush that leaves it quiet
		ctx.Send(ctx.Parent(), &keyStaying{id: w.id()})
	case !w.durable():
		ctx.Send(ctx.Parent(), &keyStaying{id: w.id(), retry: true, activity: w.activity})
	case m.unbinds < 0:
		ctx.Send(ctx.Parent(), &keyReady{id: w.id()})
	default:
		ctx.Send(ctx.Parent(), &keyPassivated{id: w.id()})
	}
}
