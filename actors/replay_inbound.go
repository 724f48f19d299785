package actors

import "sync"

// inboundPool recycles a replay's messages: a replay sends one Inbound per input
// line, and with its ack and decoded record it is the largest allocation per event.
//
// Lifetime: Replay takes one per message line and routes it with put as the ack
// function. The ack runs put once every actor the message reached has made its effect
// durable (or at once when no device takes it); by then each window actor has read
// the record and no actor holds the message, and ack.done reads nothing of it after
// put. A message that is never acknowledged (a source that failed to start) is left
// to the garbage collector.
type inboundPool struct{ pool sync.Pool }

// pooledInbound is an Inbound with the function that puts it back, made once.
type pooledInbound struct {
	Inbound
	put func()
}

func (p *inboundPool) get() *pooledInbound {
	if in, ok := p.pool.Get().(*pooledInbound); ok {
		return in
	}
	in := &pooledInbound{}
	in.put = func() { p.pool.Put(in) }
	return in
}
