package actors

import (
	"math"
	"sync/atomic"
	"time"
)

// A gateway spends most of its life waiting for the next reading, and a topology
// ticked every tickEvery whatever happens wakes a hundred times a second to find
// nothing due: a watt on a solar gateway. So a live topology is ticked when something
// is due, and every tickEvery only while something is:
//
//   - each pipeline publishes, after each message it handles, the earliest time it
//     needs a tick (sourceSchedule.wakeAt): a source awake or due to wake, a flush
//     of changes, a passivation or retention timer, an early firing, the uptime to
//     save;
//   - a source that gets changes or wakes up marks its schedule's stacks, which the
//     ticker reads too, and asks for the tick that acts on it: the pipeline's next
//     flush or next tick of its sources, not the next tickEvery;
//   - the sink ticks while it retries, the uplink while it holds records;
//   - the ticker sleeps until the earliest of these, at most maxSleep, and one that
//     asks for an earlier tick while it sleeps wakes it (tickPlan.need).
//
// A tick then runs everything due up to it, as the ticks skipped would have: a
// source's checks catch up (source_sleep.go), and timers fire at the first tick at or
// after their time. Replay ticks on its own clock and has no plan.

// maxSleep bounds a sleep of the ticker: what is due is computed, not polled, and the
// bound only caps the cost of a mistake in that computation. At rest the ticker wakes
// only for it, and each wake of an idle process costs hundreds of microseconds of
// CPU on a virtual machine.
const maxSleep = 10 * time.Second

// tickPlan is what the ticker and whoever needs a tick share.
type tickPlan struct {
	wake  chan struct{}
	until atomic.Int64 // the processing time (ms) the ticker sleeps until
	long  atomic.Bool  // the ticker sleeps longer than tickEvery: a need earlier than until wakes it
}

// tickPlanIf returns a plan for a live topology, nil for replay's.
func tickPlanIf(live bool) *tickPlan {
	if !live {
		return nil
	}
	return &tickPlan{wake: make(chan struct{}, 1)}
}

// need asks for a tick by processing time t (ms). It costs an atomic load unless the
// ticker sleeps past t; nil (replay) needs nothing.
func (p *tickPlan) need(t int64) {
	if p == nil || !p.long.Load() || t >= p.until.Load() {
		return
	}
	if p.long.CompareAndSwap(true, false) {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// nextTick returns when the topology needs its next tick after one at now: at the
// earliest time something asked for, not before now+tickEvery nor after now+maxSleep.
func (t *topology) nextTick(now int64) int64 {
	next := now + maxSleep.Milliseconds()
	t.mu.RLock()
	for i := range t.router.devices {
		next = min(next, t.router.devices[i].sched.wakeAt())
	}
	t.mu.RUnlock()
	if t.env.sinkRetrying.Load() || t.env.uplinkBusy != nil && t.env.uplinkBusy() {
		next = now
	}
	return max(next, now+tickEvery.Milliseconds())
}

// plan sets the ticker's sleep after a tick at now and returns when to tick next.
// A need that comes while it decides either sees the sleep it sets, or published its
// time before the second look.
func (t *topology) plan(now int64) int64 {
	p := t.env.ticks
	next := t.nextTick(now)
	for {
		p.until.Store(next)
		p.long.Store(next > now+tickEvery.Milliseconds())
		again := t.nextTick(now)
		if again >= next {
			return next
		}
		next = again
	}
}

// ticking ticks the topology when it needs it until stop is closed.
func (t *topology) ticking(stop <-chan struct{}) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	last := int64(math.MinInt64)
	for {
		select {
		case <-stop:
			return
		case <-timer.C:
		case <-t.env.ticks.wake:
			timer.Stop()
		}
		now := time.Now().UnixMilli()
		if earliest := last + tickEvery.Milliseconds(); now < earliest {
			// Woken sooner than the granularity allows: tick at it.
			t.env.ticks.until.Store(earliest)
			t.env.ticks.long.Store(false)
			timer.Reset(time.Duration(earliest-now) * time.Millisecond)
			continue
		}
		last = now
		t.env.ticks.until.Store(now + tickEvery.Milliseconds())
		t.env.ticks.long.Store(false)
		t.tick(now)
		timer.Reset(time.Duration(t.plan(now)-now) * time.Millisecond)
	}
}
