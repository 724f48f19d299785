package actors

import (
	"github.com/asynkron/protoactor-go/actor"
)

// Publisher delivers one message; done reports the broker's acknowledgement (PUBACK
// for QoS 1). *mqtt.Client is one; replay writes to its output instead.
type Publisher interface {
	Publish(topic string, qos byte, payload []byte, done func(error))
}

// retryEvery is how often (ms of processing time) the sink retries refused publishes.
const retryEvery = 1000

// maxSinkInflight bounds the publishes awaiting the broker's answer. The MQTT client
// has 65,535 packet ids; a burst of results or late records past that failed with "no
// message IDs available" and was retried over and over.
const maxSinkInflight = 1000

// queuedPublish is a committed entry waiting for room among the in-flight publishes.
type queuedPublish struct {
	replyTo *actor.PID
	entry   outboxEntry
}

// sink publishes committed results from the result outboxes and reports each one
// delivered, so its outbox entry is deleted and a restart does not publish it again.
type sink struct {
	env       *env
	pub       Publisher
	failed    []publishDone // refused publishes, retried in order
	nextRetry int64
	inflight  int             // publishes awaiting the broker's answer
	queued    []queuedPublish // waiting for inflight to drop below maxSinkInflight
	drains    []chan struct{} // closed when nothing is in flight or queued (shutdown)
}

func newSink(e *env, pub Publisher) *sink { return &sink{env: e, pub: pub} }

func (s *sink) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *Enqueued:
		for _, e := range m.Entries {
			s.publish(ctx, m.ReplyTo, e)
		}
	case *DrainSink:
		s.drains = append(s.drains, m.Done)
		s.maybeDrained()
	case *publishDone:
		s.inflight--
		defer s.maybeDrained() // after Published is on its way to the committer
		defer s.publishQueued(ctx)
		if m.err != nil {
			s.env.metrics.PublishErrors.Inc()
			if len(s.failed) == 0 {
				s.env.log.Warn("publishing a result failed; will retry", "topic", m.entry.Topic, "err", m.err)
			}
			s.failed = append(s.failed, *m)
			return
		}
		s.env.metrics.Published.Inc()
		ctx.Send(m.replyTo, &Published{Seqs: []uint64{m.entry.Seq}})
	case *Tick:
		if len(s.failed) == 0 || m.Now < s.nextRetry {
			return
		}
		s.nextRetry = m.Now + retryEvery
		retry := s.failed
		s.failed = nil
		for _, f := range retry {
			s.publish(ctx, f.replyTo, f.entry)
		}
	}
}

// publishQueued publishes waiting entries while there is room.
func (s *sink) publishQueued(ctx actor.Context) {
	n := 0
	for n < len(s.queued) && s.inflight < maxSinkInflight {
		s.publish(ctx, s.queued[n].replyTo, s.queued[n].entry)
		n++
	}
	s.queued = s.queued[n:]
	if len(s.queued) == 0 {
		s.queued = nil // let the backing array go
	}
}

func (s *sink) maybeDrained() {
	if s.inflight > 0 || len(s.queued) > 0 {
		return
	}
	for _, d := range s.drains {
		close(d)
	}
	s.drains = nil
}

func (s *sink) publish(ctx actor.Context, replyTo *actor.PID, e outboxEntry) {
	if s.inflight >= maxSinkInflight {
		s.queued = append(s.queued, queuedPublish{replyTo: replyTo, entry: e})
		return
	}
	s.inflight++
	self, root := ctx.Self(), ctx.ActorSystem().Root
	s.pub.Publish(e.Topic, e.QoS, e.Payload, func(err error) {
		root.Send(self, &publishDone{replyTo: replyTo, entry: e, err: err})
	})
}
