package actors

import (
	"math"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/watermark"
)

// Topics come and go too (a topic per tag, per trip). A source whose stream is idle
// and to which time alone will do nothing more (it sleeps for good:
// source_sleep.go) is passivated after the stream's idle_timeout once more: the
// pipeline stops it, and its next message starts it again from its saved state,
// going on exactly where it stopped (watermark.Generator.Resume): a source stopped
// meanwhile and one that slept all along meet that message in the same state, so
// the output does not change. It keeps its rank, so ticks and flushes go out in the
// same order. The pipeline remembers its name and rank, and /status its row, until
// the stream is forgotten (stream_retention).
//
// Only its stream state is needed, and it is saved and committed before the source
// stops: an idle stream saves its state once, with the base its watermark
// extrapolates from, and the device's uptime is saved while any saved state
// extrapolates from it (pipeline_uptime.go), passivated ones included.
//
// The handshake keeps every message: the pipeline first takes the source out of the
// index the router sends by, under the index's lock, so every message the router
// sent before is in the source's mailbox ahead of passivateSource. A message that
// finds no source asks the pipeline, which hands the passivating source back; it
// then answers sourcePassivated in vain, and stays.

// passivable reports whether the source holds nothing a passivated one would lose.
func (s *source) passivable() bool {
	z := s.handle.sleep.Load()
	return z != nil && z.until == math.MaxInt64 && s.gen.Status().Idle && !s.dirty && !s.maxUnsaved() &&
		s.pending.Main() == nil && len(s.touched) == 0 && s.routed == nil && s.saveLater(s.gen.Status())
}

// durable reports whether what the source flushed last is committed.
func (s *source) durable() bool {
	return s.flushCommits == nil || s.flushCommits.Load() != s.flushSeen
}

// maybeQuiet tells the pipeline, once per quiet spell, that the source sleeps for
// good: after its delay the pipeline asks it to stop.
func (s *source) maybeQuiet(ctx actor.Context) {
	if z := s.handle.sleep.Load(); !s.quietSent && z != nil && z.until == math.MaxInt64 && s.gen.Status().Idle {
		s.quietSent = true
		ctx.Send(ctx.Parent(), &sourceQuiet{topic: s.stream(), h: s.handle})
	}
}

// flushedUnits notes the commit count of the units a flush took, for durable.
func (s *source) flushedUnits(units []*unit) {
	if len(units) == 0 {
		return
	}
	u := units[0] // a flush's units commit together
	if u.Commits == nil {
		u.Commits = new(atomic.Uint32) // before the send: the committer adds to it
	}
	s.flushCommits, s.flushSeen = u.Commits, u.Commits.Load()
}

func (s *source) onPassivateSource(ctx actor.Context) {
	switch {
	case !s.passivable():
		s.quietSent = false
		ctx.Send(ctx.Parent(), &sourceStaying{topic: s.stream()})
	case !s.durable():
		ctx.Send(ctx.Parent(), &sourceStaying{topic: s.stream(), retry: true})
	default:
		ctx.Send(ctx.Parent(), &sourcePassivated{topic: s.stream(), received: s.received, lastArrival: s.gen.State().LastArrival})
	}
}

// resume makes a new source go on from the state its passivated predecessor saved:
// it sleeps for good, so its first message first runs the check it skipped.
func (s *source) resume(st watermark.GeneratorState) {
	baseAt, _ := s.uptime.proc(st.BaseAt)
	s.gen.Resume(st, baseAt)
	s.started = true
	s.nextEmit = math.MinInt64
	s.saved, s.savedIdle = s.gen.State(), st.Idle
	s.sentIdle, s.nextDue = st.Idle, s.plan.nextTimer(st.Watermark)
	s.handle.setStatus(s.gen.Status())
	d := s.gen.Drift()
	s.handle.sleep.Store(&sourceSleep{until: math.MaxInt64, drift: d})
	s.stats.Sleeping(&d)
}
