package actors

import (
	"sync"
	"testing"
	"time"
)

// idleWorkers is how many workers wait for a mailbox.
func (d *workers) idleWorkers() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.idle)
}

// waitIdle waits until n workers wait for a mailbox.
func waitIdle(t *testing.T, d *workers, n int) {
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
func runOne(d *workers) {
	ran := make(chan struct{})
	d.Schedule(func() { close(ran) })
	<-ran
}

// A blocked mailbox holds up no other, idle workers take the next mailboxes, and
// the workers a trim period left idle exit.
func TestWorkersRunEveryMailboxAndTrim(t *testing.T) {
	d := newWorkers(10)
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
