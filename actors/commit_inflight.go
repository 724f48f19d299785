package actors

import "sync/atomic"

// inflight counts a device's messages between arrival and acknowledgement.
type inflight struct {
	atomic.Int64
	freed chan struct{} // signalled when the count drops, for intake waiting at the limit
}

func newInflight() *inflight { return &inflight{freed: make(chan struct{}, 1)} }

// release counts one message acknowledged and wakes intake if it waits.
func (f *inflight) release() {
	f.Add(-1)
	select {
	case f.freed <- struct{}{}:
	default:
	}
}
