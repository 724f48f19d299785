package commit

import "sync/atomic"

// Inflight counts a device's messages between arrival and acknowledgement.
type Inflight struct {
	atomic.Int64
	freed chan struct{} // signalled when the count drops, for intake waiting at the limit
}

// NewInflight returns a count of zero messages.
func NewInflight() *Inflight { return &Inflight{freed: make(chan struct{}, 1)} }

// Release counts one message acknowledged and wakes intake if it waits.
func (f *Inflight) Release() {
	f.Add(-1)
	select {
	case f.freed <- struct{}{}:
	default:
	}
}

// Freed is signalled when the count drops, for intake waiting at the limit.
func (f *Inflight) Freed() <-chan struct{} { return f.freed }
