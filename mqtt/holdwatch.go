package mqtt

import (
	"sync"
	"sync/atomic"
	"time"
)

// A reader inside read(2) learns at once that the broker closed the connection: the
// kernel wakes it with EOF or a reset. edged's intake holds the reader back instead
// while limits.max_inflight messages wait for a commit (the handler blocks, paho's
// channels fill up behind it), and a broker that goes then is not seen until intake
// moves again. A hold watch asks the socket itself, without reading it, whether the
// broker closed it, every holdWatchEvery while the reader stays out of read(2), and
// gives the connection up when it did. At rest the reader sits inside read(2) and the
// watch sleeps.

// holdWatchEvery is how often a connection whose reads are held back is checked.
const holdWatchEvery = 500 * time.Millisecond

// holdWatch watches one connection; the paced reader under its buffer tells it when
// the reader enters and leaves read(2).
type holdWatch struct {
	every  time.Duration
	closed func() (bool, error) // whether the broker closed the connection, and why
	onLost func(error)

	out    atomic.Int64  // monoNow() when the reader left read(2); 0 while inside
	left   chan struct{} // signalled when the reader leaves read(2)
	done   chan struct{} // closed by stop
	once   sync.Once
	checks atomic.Int64 // how often the socket was asked, for tests
}

func newHoldWatch(every time.Duration, closed func() (bool, error), onLost func(error)) *holdWatch {
	w := &holdWatch{every: every, closed: closed, onLost: onLost, left: make(chan struct{}, 1), done: make(chan struct{})}
	go w.run()
	return w
}

// entering is called as the reader enters read(2).
func (w *holdWatch) entering() { w.out.Store(0) }

// leaving is called as the reader leaves read(2).
func (w *holdWatch) leaving() {
	w.out.Store(monoNow())
	select {
	case w.left <- struct{}{}:
	default:
	}
}

// heldBack reports whether the reader has stayed out of read(2) for at least d.
func (w *holdWatch) heldBack(d time.Duration) bool {
	out := w.out.Load()
	return out != 0 && monoNow()-out >= int64(d)
}

func (w *holdWatch) stop() { w.once.Do(func() { close(w.done) }) }

func (w *holdWatch) run() {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-w.left:
		case <-w.done:
			return
		}
		// The reader is out of read(2): check the socket once it has stayed out for
		// every, and every again as long as it stays out.
		for {
			out := w.out.Load()
			if out == 0 {
				break // inside read(2) again: the kernel wakes it if the broker goes
			}
			wait := time.Duration(out + int64(w.every) - monoNow())
			if wait <= 0 {
				w.checks.Add(1)
				if closed, err := w.closed(); closed {
					w.onLost(err)
					return
				}
				wait = w.every
			}
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-w.done:
				timer.Stop()
				return
			}
		}
	}
}

// monoStart anchors monoNow.
var monoStart = time.Now()

// monoNow is monotonic nanoseconds since the package started, never 0.
func monoNow() int64 { return int64(time.Since(monoStart)) + 1 }
