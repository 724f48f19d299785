package actors

import (
	"sync"
	"time"
)

// workers is the live dispatcher: it runs mailboxes on goroutines it keeps. protoactor's
// default dispatcher starts a goroutine each time an idle mailbox gets a message, which
// in edged is almost every message, and each new goroutine grew its stack again, copy
// by copy, down a mailbox's call chain: 12–15 % of the daemon's CPU at 20,000 msg/s.
// A worker that finishes a mailbox waits for the next one instead. Workers are never
// fewer than the mailboxes scheduled at once (a busy worker is never waited for, so an
// actor that blocks holds up no other), and those left idle for a whole trim period exit,
// so a burst's goroutines do not stay.
type workers struct {
	throughput int
	trimEvery  time.Duration // how long an idle worker waits for a mailbox before it may exit

	mu       sync.Mutex
	idle     []chan func() // the most recently idled last: its stack is the likeliest warm
	lowWater int           // fewest idle workers since the last trim: the oldest that many were never taken
	trimming bool          // a trim is scheduled
}

// liveThroughput is how many messages a mailbox runs before it lets others run,
// protoactor's default.
const liveThroughput = 300

func newWorkers(throughput int) *workers {
	return &workers{throughput: throughput, trimEvery: 2 * time.Second}
}

func (d *workers) Throughput() int { return d.throughput }

func (d *workers) Schedule(fn func()) {
	d.mu.Lock()
	if n := len(d.idle); n > 0 {
		w := d.idle[n-1]
		d.idle[n-1] = nil
		d.idle = d.idle[:n-1]
		d.lowWater = min(d.lowWater, n-1)
		d.mu.Unlock()
		w <- fn // buffered: never blocks
		return
	}
	d.mu.Unlock()
	go d.work(fn)
}

// work runs fn, then every mailbox handed to it, until a trim sends it nil.
func (d *workers) work(fn func()) {
	next := make(chan func(), 1)
	for fn != nil {
		fn()
		d.mu.Lock()
		d.idle = append(d.idle, next)
		if !d.trimming {
			d.trimming = true
			d.lowWater = len(d.idle)
			time.AfterFunc(d.trimEvery, d.trim)
		}
		d.mu.Unlock()
		fn = <-next
	}
}

// trim ends the workers that stayed idle since the last trim; it schedules the next
// one while any worker is idle.
func (d *workers) trim() {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.lowWater
	for _, w := range d.idle[:n] {
		w <- nil // an idle worker's channel is empty: never blocks
	}
	kept := copy(d.idle, d.idle[n:])
	clear(d.idle[kept:])
	d.idle = d.idle[:kept]
	d.lowWater = kept
	if kept == 0 {
		d.trimming = false
		return
	}
	time.AfterFunc(d.trimEvery, d.trim)
}
