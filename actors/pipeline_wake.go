package actors

import "math"

// publishWake tells the ticker when the pipeline needs its next tick (topology_tick_plan.go).
func (p *pipeline) publishWake() {
	if p.env.ticks == nil {
		return // replay ticks on its own clock
	}
	t := p.nextWake()
	p.sched.published(t, p.nextFlush, p.nextSourceTick)
	p.env.ticks.need(t)
}

// nextWake returns the earliest processing time at which a tick has something to do.
func (p *pipeline) nextWake() int64 {
	next := int64(math.MaxInt64)
	if len(p.sched.awake) > 0 {
		next = p.nextSourceTick
	}
	if len(p.sched.asleep) > 0 {
		next = min(next, p.sched.asleep[0].until)
	}
	for _, t := range []int64{p.quietKeys.next(), p.quietSources.next(), p.forget.next()} {
		next = min(next, t)
	}
	for i := range p.early {
		if s := &p.early[i]; len(s.keys) > 0 {
			next = min(next, s.next)
		}
	}
	if p.changes() {
		next = min(next, p.nextFlush)
	}
	if p.advancing {
		next = min(next, p.uptime.savedAt+uptimeEvery)
	}
	return next
}

// changes reports whether a flush has something to commit: sources or window actors
// with changes, refused readings, units sent ahead, deliveries the committer holds,
// or commits asked for.
func (p *pipeline) changes() bool {
	return len(p.sched.flushable) > 0 || p.sched.dirty.head.Load() != nil || len(p.touched) > 0 ||
		!p.refused.Empty() || p.ahead > 0 || p.wanted.full || len(p.wanted.streams) > 0 || p.committerPending
}
