package workers

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"
)

// idleWorkers is how many workers wait for a mailbox.
func (d *Pool) idleWorkers() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.idle)
}

// waitIdle waits until n workers wait for a mailbox.
func waitIdle(t *testing.T, d *Pool, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for d.idleWorkers() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d idle workers, want %d", d.idleWorkers(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// runOne schedules a mailbox and waits until it ran.
func runOne(d *Pool) {
	ran := make(chan struct{})
	d.Schedule(func() { close(ran) })
	<-ran
}

// A blocked mailbox holds up no other for longer than a stall, idle workers take the
// next mailboxes, and the workers a trim period left idle exit.
func TestWorkersRunEveryMailboxAndTrim(t *testing.T) {
	d := New()
	d.trimEvery = time.Hour // the test trims

	const blocked = 5
	release := make(chan struct{})
	var started, done sync.WaitGroup
	started.Add(blocked)
	done.Add(blocked)
	for range blocked {
		d.Schedule(func() {
			defer done.Done()
			started.Done()
			<-release
		})
	}
	started.Wait()
	runOne(d) // while every worker so far is blocked
	close(release)
	done.Wait()
	waitIdle(t, d, blocked+1)

	// Mailboxes run one after another take idle workers and start none.
	for range 100 {
		runOne(d)
	}
	waitIdle(t, d, blocked+1)

	// A trim ends only the workers idle since the last trim: one went idle before
	// the period began, the others later.
	d.trim()
	if n := d.idleWorkers(); n != blocked {
		t.Fatalf("after the first trim %d idle workers, want %d", n, blocked)
	}
	runOne(d) // takes one: it stays
	d.trim()
	if n := d.idleWorkers(); n != 1 {
		t.Fatalf("after a trim with one worker taken %d idle workers, want 1", n)
	}
	d.trim()
	if n := d.idleWorkers(); n != 0 {
		t.Fatalf("after a trim with none taken %d idle workers, want 0", n)
	}
	runOne(d) // an empty pool starts a worker again
	waitIdle(t, d, 1)
}

// goroutine is the id of the calling goroutine, from its stack's first line.
func goroutine() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	return string(bytes.Fields(b)[1])
}

// A mailbox scheduled by a running one runs on the same worker after it, waking none,
// and a mailbox scheduled while every worker is stuck still runs: a mailbox that waits
// for the one it scheduled does not deadlock.
func TestWorkersRunNextOnTheSameWorker(t *testing.T) {
	d := New()
	d.trimEvery = time.Hour
	ran := make(chan [2]string, 1)
	d.Schedule(func() {
		sender := goroutine()
		d.Schedule(func() { ran <- [2]string{sender, goroutine()} })
	})
	if got := <-ran; got[0] != got[1] {
		t.Fatalf("the scheduled mailbox ran on goroutine %s, its sender on %s", got[1], got[0])
	}
	waitIdle(t, d, 1)

	done := make(chan struct{})
	d.Schedule(func() {
		unblock := make(chan struct{})
		d.Schedule(func() { close(unblock) })
		<-unblock // only the watchdog can run it
		close(done)
	})
	<-done
	waitIdle(t, d, 2)
}

// The queue gives mailboxes back oldest first, across the moves of its array.
func TestFifoOrder(t *testing.T) {
	var q fifo
	var got []int
	next := 0
	for round := range 50 {
		for range round % 7 {
			i := next
			q.push(func() { got = append(got, i) })
			next++
		}
		for range round % 5 {
			if fn := q.pop(); fn != nil {
				fn()
			}
		}
	}
	for fn := q.pop(); fn != nil; fn = q.pop() {
		fn()
	}
	if len(got) != next {
		t.Fatalf("%d mailboxes came back, %d went in", len(got), next)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("mailbox %d came back as number %d", v, i)
		}
	}
}

// Once its array has grown, the queue allocates nothing, even when it never empties:
// a scheduled mailbox must not cost the collector.
func TestFifoReusesItsArray(t *testing.T) {
	var q fifo
	fn := func() {}
	q.push(fn) // one always waits: the queue never starts over from empty
	cycle := func() {
		for range 4 {
			q.push(fn)
		}
		for range 4 {
			q.pop()
		}
	}
	cycle() // grows the array
	if n := testing.AllocsPerRun(1000, cycle); n != 0 {
		t.Fatalf("%v allocations per cycle, want 0", n)
	}
	if c := cap(q.fns); c > 8 {
		t.Fatalf("the array grew to %d for at most 5 mailboxes", c)
	}
}

// A mailbox scheduled while the only running worker waits in blocking runs at once,
// not after a stall.
func TestWorkersBlockingWakesAnother(t *testing.T) {
	d := New()
	d.trimEvery, d.stall = time.Hour, time.Hour // only blocking can start another
	inside, release, ran := make(chan struct{}), make(chan struct{}), make(chan struct{})
	d.Schedule(func() {
		d.Blocking(func() {
			close(inside)
			<-release
		})
	})
	<-inside
	d.Schedule(func() { close(ran) })
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("a mailbox scheduled during a blocking call waited for it")
	}
	close(release)
	waitIdle(t, d, 2)
}

// A mailbox that waited in the queue arms the stall watchdog; once the queue is
// empty again the watchdog is disarmed, so a process at rest has no timer left to
// wake it.
func TestTheWatchdogIsDisarmedOnceTheQueueEmpties(t *testing.T) {
	d := New()
	d.stall = time.Hour // it would fire only if left armed
	d.parallel = 1      // a mailbox scheduled by a running one waits in the queue
	ran := make(chan struct{})
	d.Schedule(func() {
		d.Schedule(func() { close(ran) })
		d.mu.Lock()
		armed := d.watching
		d.mu.Unlock()
		if !armed {
			t.Error("a queued mailbox left the watchdog disarmed")
		}
	})
	<-ran
	waitIdle(t, d, 1)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.watching {
		t.Error("the watchdog is still armed with the queue empty and every worker idle")
	}
}
