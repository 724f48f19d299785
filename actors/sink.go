package actors

import (
	"errors"
	"math"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/mqtt"
)

// Publisher delivers one message; done reports the broker's acknowledgement (PUBACK
// for QoS 1). *mqtt.Client is one; replay writes to its output instead.
type Publisher interface {
	Publish(topic string, qos byte, payload []byte, done func(error))
}

// retryEvery is how often (ms of processing time) the sink retries refused publishes.
const retryEvery = 1000

// maxSinkInflight bounds the publishes awaiting the broker's answer. The MQTT client
// has 65,535 packet ids; a burst of results or late records past that fails with "no
// message IDs available" and would be retried over and over.
const maxSinkInflight = 1000

// maxSinkQueued bounds the committed entries the sink keeps in memory waiting for
// room. Past it, it leaves the rest in the outbox on disk and reads them back in
// order as the queue drains: a flood of late records must not pile up in memory.
const maxSinkQueued = 10_000

// queuedPublish is a committed entry waiting for room among the in-flight publishes.
type queuedPublish struct {
	queue string
	entry outboxEntry
}

// behind is an outbox whose newest entries the sink left on disk: every committed
// entry after seq after is still to be read back.
type behind struct {
	after uint64
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
	behind    map[string]*behind
	drains    []chan struct{} // closed when nothing is in flight or queued (shutdown)
	// Confirmations go to the committer that last sent a queue's entries, so a
	// device's pipeline can be replaced (live reload, a restart after a failure)
	// while its results are in flight; while a queue has no owner they are held.
	owners   map[string]*actor.PID
	held     map[string][]uint64
	accepted map[string]uint64 // the highest seq taken from each queue
}

func newSink(e *env, pub Publisher) *sink {
	return &sink{env: e, pub: pub, owners: map[string]*actor.PID{}, held: map[string][]uint64{}, accepted: map[string]uint64{}}
}

func (s *sink) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *Enqueued:
		s.onEnqueued(ctx, m)
	case *resendOutbox:
		s.onResend(ctx, m)
	case *DrainSink:
		s.drains = append(s.drains, m.Done)
		s.maybeDrained()
	case *detachQueue:
		s.owners[m.queue] = nil
		close(m.done)
	case *publishDone:
		s.inflight--
		defer s.maybeDrained() // after Published is on its way to the committer
		defer s.publishQueued(ctx)
		if errors.Is(m.err, mqtt.ErrInvalidTopic) {
			// Sending it would cost the connection every device shares, and a retry
			// cannot succeed: it is dropped from the outbox, counted and logged.
			s.env.metrics.PublishRefused.WithLabelValues("local").Inc()
			s.env.log.Error("dropping a result whose topic the broker would refuse", "err", m.err)
			s.confirm(ctx, m.queue, m.entry.Seq)
			return
		}
		if m.err != nil {
			s.env.metrics.PublishErrors.Inc()
			if len(s.failed) == 0 {
				s.env.log.Warn("publishing a result failed; will retry", "topic", m.entry.Topic, "err", m.err)
			}
			s.failed = append(s.failed, *m)
			s.env.sinkRetrying.Store(true)
			s.env.ticks.need(math.MinInt64) // retries go out on ticks
			return
		}
		s.env.metrics.Published.Inc()
		s.confirm(ctx, m.queue, m.entry.Seq)
	case *Tick:
		if len(s.failed) == 0 || m.Now < s.nextRetry {
			return
		}
		s.nextRetry = m.Now + retryEvery
		retry := s.failed
		s.failed = nil
		s.env.sinkRetrying.Store(false) // a publish that fails again sets it
		for _, f := range retry {
			s.publish(ctx, f.queue, f.entry)
		}
	}
}

// onEnqueued publishes newly committed entries, or queues them, or, once the queue
// is full, leaves them in the outbox to be read back later.
func (s *sink) onEnqueued(ctx actor.Context, m *Enqueued) {
	if m.ReplyTo != nil && !m.ReplyTo.Equal(s.owners[m.Queue]) {
		s.owners[m.Queue] = m.ReplyTo
		if seqs := s.held[m.Queue]; len(seqs) > 0 {
			ctx.Send(m.ReplyTo, &Published{Seqs: seqs})
			delete(s.held, m.Queue)
		}
	}
	// A new pipeline hands over its outbox again; what the sink took before is
	// published, or in its hands, and confirmed to the queue's owner.
	entries := m.Entries
	for len(entries) > 0 && entries[0].Seq <= s.accepted[m.Queue] {
		entries = entries[1:]
	}
	if len(entries) == 0 {
		return
	}
	s.accepted[m.Queue] = entries[len(entries)-1].Seq
	if b := s.behind[m.Queue]; b != nil {
		return // they are on disk after b.after
	}
	for _, e := range entries {
		if len(s.queued) >= maxSinkQueued {
			if s.behind == nil {
				s.behind = map[string]*behind{}
			}
			s.behind[m.Queue] = &behind{after: e.Seq - 1}
			return
		}
		s.publish(ctx, m.Queue, e)
	}
}

// onResend takes over a result outbox from a starting pipeline: m.replyTo owns it now,
// and the entries the sink has not taken are read back from the store in order, a
// batch at a time as publishes complete, like entries it left there.
func (s *sink) onResend(ctx actor.Context, m *resendOutbox) {
	s.onEnqueued(ctx, &Enqueued{Queue: m.queue, ReplyTo: m.replyTo})
	if s.behind[m.queue] == nil {
		if s.behind == nil {
			s.behind = map[string]*behind{}
		}
		s.behind[m.queue] = &behind{after: s.accepted[m.queue]}
	}
	s.publishQueued(ctx)
	s.maybeDrained() // an empty outbox is caught up at once
}

// confirm tells a queue's owner that an entry is done with, or holds it until the
// queue has an owner again.
func (s *sink) confirm(ctx actor.Context, queue string, seq uint64) {
	if owner := s.owners[queue]; owner != nil {
		ctx.Send(owner, &Published{Seqs: []uint64{seq}})
		return
	}
	s.held[queue] = append(s.held[queue], seq)
}

// publishQueued publishes waiting entries while there is room, reading back entries
// left in an outbox once the queue is short.
func (s *sink) publishQueued(ctx actor.Context) {
	n := 0
	for n < len(s.queued) && s.inflight < maxSinkInflight {
		s.publish(ctx, s.queued[n].queue, s.queued[n].entry)
		n++
	}
	s.queued = s.queued[n:]
	if len(s.queued) == 0 {
		s.queued = nil // let the backing array go
	}
	// In the order of the queues' names: replay's output must not follow a map's.
	for _, queue := range sortedKeys(s.behind) {
		if len(s.queued) >= maxSinkQueued/2 {
			return
		}
		s.readBack(ctx, queue, s.behind[queue])
	}
}

// readBack queues the next entries left in an outbox; when none are left the outbox
// is caught up and new entries are taken as they are committed again.
func (s *sink) readBack(ctx actor.Context, queue string, b *behind) {
	const batch = 1000
	entries, err := s.env.store.Peek(queue, b.after, batch)
	if err != nil {
		s.env.log.Error("reading back an outbox", "queue", queue, "err", err)
		return
	}
	for _, e := range entries {
		b.after = e.Seq
		// Taken: the Enqueued of an entry read here before it arrived skips it.
		s.accepted[queue] = max(s.accepted[queue], e.Seq)
		oe, err := outbox.Decode(e.Seq, e.Payload)
		if err != nil {
			s.env.log.Error("skipping a malformed outbox entry", "queue", queue, "err", err)
			continue
		}
		s.publish(ctx, queue, oe)
	}
	if len(entries) < batch {
		delete(s.behind, queue)
	}
}

func (s *sink) maybeDrained() {
	if s.inflight > 0 || len(s.queued) > 0 || len(s.behind) > 0 {
		return
	}
	for _, d := range s.drains {
		close(d)
	}
	s.drains = nil
}

func (s *sink) publish(ctx actor.Context, queue string, e outboxEntry) {
	if s.inflight >= maxSinkInflight {
		s.queued = append(s.queued, queuedPublish{queue: queue, entry: e})
		return
	}
	s.inflight++
	self, root := ctx.Self(), ctx.ActorSystem().Root
	s.pub.Publish(e.Topic, e.QoS, e.Payload, func(err error) {
		root.Send(self, &publishDone{queue: queue, entry: e, err: err})
	})
}
