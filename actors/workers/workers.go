package workers

import (
	"runtime"
	"sync"
	"time"
)

// Pool is the live dispatcher: it runs mailboxes on goroutines it keeps. protoactor's
// default dispatcher starts a goroutine each time an idle mailbox gets a message, which
// in edged is almost every message, and each new goroutine grows its stack again,
// copy by copy, down a mailbox's call chain: a cost on nearly every message. A
// worker that finishes a mailbox takes the next one instead.
//
// Most mailboxes are scheduled by a running actor sending to an idle one (router to
// pipeline to source to window). Handing each to another worker would wake a parked
// goroutine and, through the Go scheduler, a parked thread (a futex) per message.
// So such a mailbox waits in a queue that the running workers take from when their
// turn ends, Go's runnext idea; a parked worker is woken only when more mailboxes wait
// than workers run, and while fewer workers run than there are cores. A worker that
// stays in one turn for a whole stall period (a commit waiting for the disk, a flood
// that never empties a mailbox) holds up the queue no longer than that: the watchdog
// then starts another. Workers left idle for a whole trim period exit, so a burst's
// goroutines do not stay.
type Pool struct {
	trimEvery time.Duration // how long an idle worker waits for a mailbox before it may exit
	stall     time.Duration // how long the queue may stand still before another worker starts
	parallel  int           // running workers beyond which a queued mailbox wakes none

	mu       sync.Mutex
	queue    fifo          // mailboxes waiting for a running worker, oldest first
	running  int           // workers not parked: each takes from the queue when its turn ends
	seen     uint64        // the queue's generation when the watchdog last looked
	watchdog *time.Timer   // armed while the queue may hold mailboxes
	watching bool          // the watchdog is armed
	idle     []chan func() // the most recently idled last: its stack is the likeliest warm
	lowWater int           // fewest idle workers since the last trim: the oldest that many were never taken
	trimming bool          // a trim is scheduled
}

// throughput is how many messages a mailbox runs before it lets others run,
// protoactor's default.
const throughput = 300

// stall bounds how long a queued mailbox waits behind workers that are all busy.
// Long enough that a message chain rarely trips it, short next to a commit interval.
const stall = time.Millisecond

// New returns a pool with no workers yet: the first mailbox scheduled starts one.
func New() *Pool {
	return &Pool{trimEvery: 2 * time.Second, stall: stall, parallel: runtime.GOMAXPROCS(0)}
}

// Throughput is how many messages a mailbox runs per turn (actor.Dispatcher).
func (d *Pool) Throughput() int { return throughput }

// Schedule runs a mailbox's turn fn on a worker (actor.Dispatcher).
func (d *Pool) Schedule(fn func()) {
	d.mu.Lock()
	if d.queue.len() < d.running || d.running >= d.parallel {
		// A running worker takes it when its turn ends, most often the one sending.
		d.queue.push(fn)
		d.watch()
		d.mu.Unlock()
		return
	}
	if d.queue.len() > 0 { // the oldest goes first
		d.queue.push(fn)
		fn = d.queue.pop()
	}
	d.start(fn)
}

// start runs fn on an idle worker, or a new one; it unlocks mu.
func (d *Pool) start(fn func()) {
	d.running++
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

// work runs fn, then the queue's mailboxes and every mailbox handed to it, until a
// trim sends it nil.
func (d *Pool) work(fn func()) {
	var next chan func()
	for fn != nil {
		fn()
		d.mu.Lock()
		if fn = d.queue.pop(); fn != nil {
			d.mu.Unlock()
			continue
		}
		d.running--
		d.unwatch()
		if next == nil {
			next = make(chan func(), 1)
		}
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

// Blocking runs f, which waits for something other than the CPU, as a turn the queue
// does not wait for: while f runs its worker does not count as running, so a mailbox
// scheduled meanwhile wakes another worker at once rather than after a stall. Only a
// mailbox's turn on this pool may call it.
func (d *Pool) Blocking(f func()) {
	d.mu.Lock()
	d.running--
	if d.queue.len() > d.running && d.running < d.parallel {
		d.start(d.queue.pop())
	} else {
		d.mu.Unlock()
	}
	f()
	d.mu.Lock()
	d.running++
	d.mu.Unlock()
}

// watch arms the watchdog unless it is armed; mu is held.
func (d *Pool) watch() {
	if d.watching {
		return
	}
	d.watching, d.seen = true, d.queue.gen
	if d.watchdog == nil {
		d.watchdog = time.AfterFunc(d.stall, d.check)
		return
	}
	d.watchdog.Reset(d.stall)
}

// unwatch disarms the watchdog; the queue is empty: a timer left to fire would
// wake a process at rest for nothing, once per burst of messages. mu is held.
func (d *Pool) unwatch() {
	if d.watching {
		d.watchdog.Stop()
		d.watching = false
	}
}

// check starts another worker for the oldest queued mailbox when none was taken for a
// stall period: every running worker is stuck in a turn.
func (d *Pool) check() {
	d.mu.Lock()
	if d.queue.len() == 0 {
		d.watching = false
		d.mu.Unlock()
		return
	}
	stuck := d.queue.gen == d.seen
	d.seen = d.queue.gen
	d.watchdog.Reset(d.stall)
	if !stuck {
		d.mu.Unlock()
		return
	}
	fn := d.queue.pop()
	d.seen = d.queue.gen // its own take is not the queue moving
	d.start(fn)
}

// trim ends the workers that stayed idle since the last trim; it schedules the next
// one while any worker is idle.
func (d *Pool) trim() {
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
