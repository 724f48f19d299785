package commit

import "sync/atomic"

// Ack acknowledges one MQTT message once every actor it reached has made its effect
// durable. A message that fans out to n window definitions is acked by the n-th Done.
type Ack struct {
	pending  atomic.Int32
	fn       func() // runs once acknowledged: intake's put (the actors' inboundPool), which acks QoS 1 to the broker
	inflight *Inflight
}

// NewAck returns an ack held by one actor that runs fn once acknowledged and then
// releases one message of inflight (either may be nil).
func NewAck(fn func(), inflight *Inflight) *Ack {
	a := &Ack{}
	a.Init(fn, inflight)
	return a
}

// Init readies an ack held by one actor, for an ack embedded in what it acknowledges.
func (a *Ack) Init(fn func(), inflight *Inflight) {
	a.fn, a.inflight = fn, inflight
	a.pending.Store(1)
}

// Add registers n more actors that must call Done.
func (a *Ack) Add(n int) { a.pending.Add(int32(n)) }

// Done records that one holder made its effect durable.
func (a *Ack) Done() {
	if a.pending.Add(-1) != 0 {
		return
	}
	// fn may recycle what a is part of (an Inbound of the actors' inboundPool): nothing of a is read after it.
	fn, inflight := a.fn, a.inflight
	if fn != nil {
		fn()
	}
	if inflight != nil {
		inflight.Release()
	}
}
