package actors

import (
	"sync"

	"github.com/edged/edged/mqtt"
)

// inboundPool recycles the messages the router takes, live or in a replay: with its
// ack and decoded record, an Inbound is the largest allocation per message.
//
// Lifetime: intake takes one per message and routes it with put as the ack
// function. The ack runs put once every actor the message reached has made its effect
// durable (or at once when no device takes it); by then each window actor has read
// the record and no actor holds the message, and Ack.Done reads nothing of it after
// put. A message that is never acknowledged (a source that failed to start, a stop
// that leaves it to redelivery) is left to the garbage collector.
type inboundPool struct{ pool sync.Pool }

// pooledInbound is an Inbound with the function that puts it back, made once.
type pooledInbound struct {
	Inbound
	// msg is the MQTT message put acknowledges to the broker first (QoS 1 live):
	// held here, not as a closure over it, which would be an allocation per message.
	msg *mqtt.Message
	put func()
}

func (p *inboundPool) get() *pooledInbound {
	if in, ok := p.pool.Get().(*pooledInbound); ok {
		return in
	}
	in := &pooledInbound{}
	in.put = func() {
		if m := in.msg; m != nil {
			in.msg = nil
			m.Ack()
		}
		p.pool.Put(in)
	}
	return in
}
