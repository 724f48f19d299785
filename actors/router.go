package actors

import (
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// router hands each incoming message to the pipelines of the devices whose streams
// match its topic. It runs on the MQTT client's goroutine, so it only counts and sends.
type router struct {
	devices   []routedDevice
	unmatched func(topic string, at int64) // counts and logs a message no stream matches
	blocked   func() bool                  // intake is blocked: shed QoS 0
	closing   atomic.Bool
}

type routedDevice struct {
	plan        *plan
	pid         *actor.PID
	inflight    *atomic.Int64
	maxInflight int64
	overload    func()
}

// route delivers one message; ackFn acknowledges it to the broker once every device
// that took it made its effect durable.
func (r *router) route(send func(*actor.PID, any), m *Inbound, ackFn func()) {
	if r.closing.Load() {
		// Shutting down: leave the message unacknowledged so the broker redelivers it.
		return
	}
	var takers [8]*routedDevice
	taken := takers[:0]
	for i := range r.devices {
		d := &r.devices[i]
		if d.plan.match(m.Topic) < 0 {
			continue
		}
		if m.QoS == 0 && (d.inflight.Load() >= d.maxInflight || r.blocked()) {
			d.overload()
			continue
		}
		taken = append(taken, d)
	}
	switch len(taken) {
	case 0:
		if len(r.devices) > 0 && !r.anyMatch(m.Topic) {
			r.unmatched(m.Topic, m.At)
		}
		if ackFn != nil {
			ackFn()
		}
		return
	case 1:
	default: // one message, several devices: the broker ack waits for all of them
		shared := newAck(ackFn, nil)
		shared.add(len(taken) - 1)
		ackFn = shared.done
	}
	for i, d := range taken {
		in := m
		if i > 0 {
			c := *m
			in = &c
		}
		in.ack = newAck(ackFn, d.inflight)
		d.inflight.Add(1)
		send(d.pid, in)
	}
}

func (r *router) anyMatch(topic string) bool {
	for i := range r.devices {
		if r.devices[i].plan.match(topic) >= 0 {
			return true
		}
	}
	return false
}
