package actors

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
)

// TestDirtySourcesAreHandedOverOnceAndNeverLost has sources mark themselves dirty on
// their own goroutines while the pipeline takes them, flushes some of them alone (a
// scoped flush) and all of them: every change is flushed, and no handle is ever in
// the stack twice (a cycle would hang take).
func TestDirtySourcesAreHandedOverOnceAndNeverLost(t *testing.T) {
	const sources, rounds = 8, 20_000
	var sched sourceSchedule
	hs := make([]*sourceHandle, sources)
	for i := range hs {
		hs[i] = &sourceHandle{}
		sched.add(hs[i], 0)
	}
	var marked, flushed [sources]atomic.Int64 // changes made, and flushes that took them
	var changes [sources]atomic.Int64         // changes not yet flushed
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				changes[i].Add(1)
				marked[i].Add(1)
				h.markDirty()
			}
		}()
	}
	drain := func(h *sourceHandle, i int) { flushed[i].Add(changes[i].Swap(0)) }
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for n := 0; ; n++ {
		select {
		case <-done:
			for _, h := range sched.flushAll() {
				for i := range hs {
					if hs[i] == h {
						drain(h, i)
					}
				}
			}
			for i := range hs {
				if marked[i].Load() != flushed[i].Load() {
					t.Errorf("source %d: %d changes made, %d flushed", i, marked[i].Load(), flushed[i].Load())
				}
			}
			return
		default:
		}
		if n%3 == 0 {
			i := n % sources
			if sched.flushOne(hs[i]) {
				drain(hs[i], i)
			}
			continue
		}
		for _, h := range sched.flushAll() {
			for i := range hs {
				if hs[i] == h {
					drain(h, i)
				}
			}
		}
	}
}

// TestAChangedOrWokenSourceAsksForTheTickThatActsOnIt has a source change and wake
// while the ticker sleeps: it asks for the pipeline's next flush or next tick of its
// sources, which is what acts on it, and wakes the ticker only if that comes before
// the ticker's own plan. A source that asked for a tick at once woke the ticker a
// hundred times a second at a few hundred readings a second.
func TestAChangedOrWokenSourceAsksForTheTickThatActsOnIt(t *testing.T) {
	const now, flushAt, tickAt = 1_000, 1_100, 1_200
	for _, c := range []struct {
		name   string
		until  int64 // the ticker sleeps until
		change func(*sourceHandle)
		want   int64 // the device's wakeAt
		woken  bool  // the ticker is woken
	}{
		{"changed, the ticker sleeps past the flush", now + 1000, (*sourceHandle).markDirty, flushAt, true},
		{"changed, the ticker wakes before the flush", now + 50, (*sourceHandle).markDirty, flushAt, false},
		{"woken, the ticker sleeps past the tick", now + 1000, (*sourceHandle).woke, tickAt, true},
		{"woken, the ticker wakes before the tick", now + 150, (*sourceHandle).woke, tickAt, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := tickPlanIf(true)
			plan.until.Store(c.until)
			plan.long.Store(true)
			sched := newSourceSchedule(plan)
			h := &sourceHandle{}
			sched.add(h, 0)
			sched.published(math.MaxInt64, flushAt, tickAt)
			if got := sched.wakeAt(); got != math.MaxInt64 {
				t.Fatalf("wakeAt before the change = %d, want the pipeline's %d", got, int64(math.MaxInt64))
			}
			c.change(h)
			if got := sched.wakeAt(); got != c.want {
				t.Errorf("wakeAt = %d, want %d", got, c.want)
			}
			woken := len(plan.wake) == 1
			if woken != c.woken {
				t.Errorf("ticker woken = %v, want %v", woken, c.woken)
			}
		})
	}
}
