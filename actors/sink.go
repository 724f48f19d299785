package actors

import (
	"errors"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/mqtt"
)

// Publisher delivers one message; done reports the broker's acknowledgement (PUBACK
// for QoS 1). *mqtt.Client is one; replay writes to its output instead.
type Publisher interface {
	Publish(topic string, qos byte, payload []byte, done func(error))
}

// retryEvery is how often (ms of processing time) the sink retries refused publishes.
const retryEvery = 1000

// sink publishes committed results from the result outboxes and reports each one
// delivered, so its outbox entry is deleted and a restart does not publish it again.
type sink struct {
	env       *env
	pub       Publisher
	failed    []publishDone // refused publishes, retried in order
	nextRetry int64
	inflight  int             // publishes awaiting the broker's answer
	drains    []chan struct{} // closed when inflight reaches zero (shutdown)
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
		if errors.Is(m.err, mqtt.ErrInvalidTopic) {
			// Sending it would cost the connection every device shares, and a retry
			// cannot succeed: it is dropped from the outbox, counted and logged.
			s.env.metrics.PublishRefused.WithLabelValues("local").Inc()
			s.env.log.Error("dropping a result whose topic the broker would refuse", "err", m.err)
			ctx.Send(m.replyTo, &Published{Seqs: []uint64{m.entry.Seq}})
			return
		}
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

func (s *sink) maybeDrained() {
	if s.inflight > 0 {
		return
	}
	for _, d := range s.drains {
		close(d)
	}
	s.drains = nil
}

func (s *sink) publish(ctx actor.Context, replyTo *actor.PID, e outboxEntry) {
	s.inflight++
	self, root := ctx.Self(), ctx.ActorSystem().Root
	s.pub.Publish(e.Topic, e.QoS, e.Payload, func(err error) {
		root.Send(self, &publishDone{replyTo: replyTo, entry: e, err: err})
	})
}
