package actors

import (
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
