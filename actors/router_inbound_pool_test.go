package actors

import (
	"testing"

	"github.com/edged/edged/mqtt"
)

// An Inbound goes back to the pool once acknowledged, acknowledging its QoS 1 message
// to the broker first; whoever takes it next must not acknowledge that message again.
func TestAPooledInboundAcksItsMessageOnce(t *testing.T) {
	var p inboundPool
	acks := 0
	in := p.get()
	in.Inbound = Inbound{Topic: "t", QoS: 1}
	in.msg = mqtt.NewMessage("t", nil, 1, false, func() { acks++ })
	in.ack = &in.ackSlot
	in.ackSlot.Init(in.put, nil)
	in.ack.Done()
	if acks != 1 {
		t.Fatalf("acknowledged %d times, want once", acks)
	}
	// The next message, QoS 0, may get the same Inbound back.
	for range 10 {
		next := p.get()
		next.Inbound = Inbound{Topic: "t"}
		next.put()
	}
	if acks != 1 {
		t.Fatalf("a recycled Inbound acknowledged its earlier message again (%d acks)", acks)
	}
}
