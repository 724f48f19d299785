package actors

import "sync/atomic"

// ack acknowledges one MQTT message once every actor it reached has made its effect
// durable. A message that fans out to n window definitions is acked by the n-th done.
type ack struct {
	pending  atomic.Int32
	fn       func() // runs once acknowledged: intake's put (inboundPool), which acks QoS 1 to the broker
	inflight *inflight
}

func newAck(fn func(), inflight *inflight) *ack {
	a := &ack{}
	a.init(fn, inflight)
	return a
}

// init readies an ack held by one actor, for an ack embedded in what it acknowledges.
func (a *ack) init(fn func(), inflight *inflight) {
	a.fn, a.inflight = fn, inflight
	a.pending.Store(1)
}

// add registers n more actors that must call done.
func (a *ack) add(n int) { a.pending.Add(int32(n)) }

// done records that one holder made its effect durable.
func (a *ack) done() {
	if a.pending.Add(-1) != 0 {
		return
	}
	// fn may recycle what a is part of (see inboundPool): nothing of a is read after it.
	fn, inflight := a.fn, a.inflight
	if fn != nil {
		fn()
	}
	if inflight != nil {
		inflight.release()
	}
}
