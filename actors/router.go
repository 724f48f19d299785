package actors

import (
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/commit"
)

// router hands each incoming message to the source actors of the devices whose
// streams match its topic. It runs on one goroutine at a time (the MQTT client's, or
// replay's), so it only counts and sends; the first message of a new topic waits
// for the pipeline to spawn its source, so every message of a topic takes one path
// and they stay in order.
type router struct {
	root      *actor.RootContext
	devices   []routedDevice
	unmatched func(topic string, at int64) // counts and logs a message no stream matches
	longTopic func(topic string, at int64) // counts and logs a message dropped for its topic's length
	blocked   func() bool                  // intake is blocked: shed QoS 0
	spawnWait time.Duration                // spawnTimeout; shorter in tests
	log       *slog.Logger
	closing   atomic.Bool
	// gate is held by route for each message, and by a live reload while it
	// replaces devices: a channel, not a mutex, so a reload can give up waiting.
	gate chan struct{}
}

type routedDevice struct {
	plan        *plan
	pid         *actor.PID      // the pipeline
	sources     *sourceIndex    // the pipeline's, read to send straight to a source
	sched       *sourceSchedule // the pipeline's, read by the ticker (topology_tick_plan.go)
	inflight    *inflight
	maxInflight int64
	overload    func()
	hold        *holdQueue      // set while a live reload replaces the device
	restored    <-chan struct{} // closed once the pipeline takes messages (restoreGate)
}

// maxTopicBytes bounds the topic of a message edged takes. A topic is a stream: its
// name is part of store keys, which Badger bounds (65,000 bytes; a commit holding a
// longer one fails every time, so the device would stall on it after every restart),
// and a metrics label. MQTT allows 65,535 bytes; sensor topics are far shorter.
const maxTopicBytes = 1024

// spawnTimeout is how long the router waits for a new topic's source actor before it
// says so in the log and asks again (the wait before, for the device's saved state to
// be read, is not counted). It goes on asking as long as the pipeline runs and edged
// is not stopping: a message left unacknowledged would come back only after the
// broker connection is lost. Asking again covers a request lost with a pipeline that
// restarted; a pipeline answers a repeated request with the source it started.
const spawnTimeout = 5 * time.Second

// route delivers one message; ackFn acknowledges it to the broker once every device
// that took it made its effect durable.
func (r *router) route(m *Inbound, ackFn func()) {
	for {
		full := r.routeOnce(m, ackFn)
		if full == nil {
			return
		}
		// A device being reloaded holds as many messages as it may have in flight:
		// wait until it takes them, as for room (see waitForRoom), then route again.
		check := time.NewTimer(roomCheck)
		select {
		case <-full:
		case <-check.C:
		}
		check.Stop()
	}
}

// routeOnce routes m, or returns the release channel of a device whose hold is full
// without routing anything.
func (r *router) routeOnce(m *Inbound, ackFn func()) (full chan struct{}) {
	r.gate <- struct{}{}
	defer func() { <-r.gate }()
	if r.closing.Load() {
		// Shutting down: leave the message unacknowledged so the broker redelivers it.
		return nil
	}
	if len(m.Topic) > maxTopicBytes {
		r.longTopic(m.Topic, m.At)
		if ackFn != nil {
			ackFn()
		}
		return nil
	}
	var takers [8]*routedDevice
	taken := takers[:0]
	for i := range r.devices {
		d := &r.devices[i]
		if d.plan.match(m.Topic) < 0 {
			continue
		}
		if m.QoS == 0 && (d.inflight.Load() >= d.maxInflight || r.blocked() || d.hold.full(d.maxInflight)) {
			d.overload()
			continue
		}
		if d.hold.full(d.maxInflight) {
			return d.hold.released
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
		return nil
	case 1:
	default: // one message, several devices: the broker ack waits for all of them
		shared := commit.NewAck(ackFn, nil)
		shared.Add(len(taken) - 1)
		ackFn = shared.Done
	}
	for i, d := range taken {
		in := m
		if i > 0 {
			in = &Inbound{Topic: m.Topic, Payload: m.Payload, QoS: m.QoS, Duplicate: m.Duplicate, At: m.At}
		}
		if d.hold != nil {
			d.hold.add(in, ackFn)
			continue
		}
		r.deliver(d, in, ackFn)
	}
	return nil
}

// deliver sends one message to its source actor on device d.
func (r *router) deliver(d *routedDevice, in *Inbound, ackFn func()) {
	if in.QoS > 0 {
		r.waitForRoom(d)
	}
	for {
		src, err := r.source(d, in.Topic)
		if err != nil {
			// Stopping, or the pipeline stopped: left unacknowledged, the broker
			// redelivers it after a reconnect.
			return
		}
		// A source being passivated is closing: counted first, then checked, so
		// either the router sees it closing and asks the pipeline, or the
		// pipeline sees the count and keeps the source (source_passivate.go).
		src.sent.Add(1)
		if src.closing.Load() {
			src.sent.Add(^uint64(0))
			continue
		}
		in.ackSlot.Init(ackFn, d.inflight)
		in.ack = &in.ackSlot
		d.inflight.Add(1)
		r.root.Send(src.pid, in)
		return
	}
}

// roomCheck is how often intake waiting for room re-checks whether edged is stopping.
const roomCheck = 100 * time.Millisecond

// waitForRoom holds a QoS 1 message while the device has limits.max_inflight messages
// unacknowledged, until commits free room. edged never drops a QoS 1 message, and the
// broker's own in-flight window is not a dependable bound (Mosquitto let 159k through
// against max_inflight_messages 10000), so edged bounds it itself: waiting here holds
// the MQTT client's reader, TCP flow control holds back the broker, and unread messages
// stay with the broker. Acknowledgements go out on another goroutine, so the commits
// that free room are not held up. A wait lasts about one commit interval, longer only
// while commits fail (then intake is stalled anyway).
func (r *router) waitForRoom(d *routedDevice) {
	var check *time.Timer
	for d.inflight.Load() >= d.maxInflight && !r.closing.Load() {
		if check == nil {
			check = time.NewTimer(roomCheck)
			defer check.Stop()
		}
		select {
		case <-d.inflight.Freed():
		case <-check.C:
			check.Reset(roomCheck)
		}
	}
}

// source returns the source actor of a topic, asking the pipeline to spawn it the
// first time (or again, after it was passivated). It waits as long as the pipeline
// runs and edged is not stopping.
func (r *router) source(d *routedDevice, topic string) (*sourceHandle, error) {
	if h := d.sources.get(topic); h != nil && !h.closing.Load() {
		return h, nil
	}
	if err := r.waitRestored(d); err != nil {
		return nil, err
	}
	for said := false; ; said = true {
		res, err := r.root.RequestFuture(d.pid, &sourceWanted{topic: topic}, r.spawnWait).Result()
		if err == nil {
			return res.(*sourceHandle), nil
		}
		if h := d.sources.get(topic); h != nil && !h.closing.Load() {
			return h, nil // answered just too late
		}
		switch {
		case !errors.Is(err, actor.ErrTimeout):
			return nil, fmt.Errorf("starting the source of %s: %w", topic, err)
		case r.closing.Load():
			return nil, fmt.Errorf("stopping while the source of %s starts", topic)
		case !r.running(d):
			return nil, fmt.Errorf("starting the source of %s: the device's pipeline stopped", topic)
		}
		if !said {
			r.log.Warn("the device's pipeline has not started the source of a new topic yet; intake is waiting for it",
				"device", d.plan.device.ID, "topic", topic, "waited", r.spawnWait)
		}
	}
}

// running reports whether d's pipeline has not stopped (its supervisor gave up).
func (r *router) running(d *routedDevice) bool {
	_, ok := r.root.ActorSystem().ProcessRegistry.GetLocal(d.pid.Id)
	return ok
}

// waitRestored holds intake until the device's pipeline has read its saved state,
// which on a large device takes longer than spawnTimeout: a source asked for sooner
// would be waited for just the same, with a warning. A pipeline that stopped (its
// supervisor gave up) never restores: its messages are left to redelivery.
func (r *router) waitRestored(d *routedDevice) error {
	if d.restored == nil {
		return nil
	}
	check := time.NewTicker(roomCheck)
	defer check.Stop()
	for {
		select {
		case <-d.restored:
			return nil
		case <-check.C:
			if r.closing.Load() {
				return errors.New("stopping while the device restores")
			}
			if !r.running(d) {
				return errors.New("the device's pipeline stopped while it restored")
			}
		}
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
