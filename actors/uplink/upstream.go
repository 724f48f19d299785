package uplink

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/configs"
)

// upstreamConn is the uplink as the upstream actor sees it: *Link in the
// daemon (over an MQTT or a JetStream transport), a fake in tests. The actor decides
// what goes out and when; the transport how. publish sends one batch; done reports,
// once, that the server acknowledged every record of it (MQTT PUBACK, JetStream
// PubAck) or why not, and the actor then sends the whole batch again, unless the
// error is a *refusal.
type upstreamConn interface {
	publish(b upstreamBatch, done func(error))
	Connected() bool
}

// refusal is a transport's answer that records of a batch can never be published,
// however often they are sent (a topic the broker refuses, a record larger than it
// takes): the first acked records were acknowledged, the next refused ones are
// refused, and the rest, if any, are to be sent again.
type refusal struct {
	acked, refused int
	err            error
}

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

const (
	// upstreamRetryAfter is how long (ms of processing time) a queue waits after a
	// refused publish before it sends again.
	upstreamRetryAfter = 1000
	// upstreamAckTimeout resends a batch that got no answer for this long (ms) while
	// connected. The client normally answers every publish; this only guards a stall.
	upstreamAckTimeout = 60_000
)

// upstream ships the devices' upstream outboxes ("up/<device>": late records and, when
// a window asks, its results) to the upstream broker with QoS 1.
//
// Delivery is at least once and in order per device: each queue has one batch in
// flight; an entry leaves the outbox only after its PUBACK (the actor reports it
// Delivered to the device's committer, which deletes it in its next commit). A failed
// batch is read back from the store and sent again, so a retry cannot reorder; a
// record sent twice carries the same id both times.
//
// What the cloud receives over MQTT on {topic_prefix}/{device}/late/{stream} (and
// .../results/{window}): one MQTT message per batch, the record itself when the batch
// holds one, otherwise a JSON array of records in outbox order (see mqtt.go;
// JetStream gets one message per record, see nats.go). A batch holds
// consecutive records of one topic, at most batch.max_records, and waits at most
// batch.max_delay for more. Every record starts with "id":"<device>-<seq>", seq being
// the outbox sequence number, unique per device across restarts: the cloud drops the
// duplicates at-least-once delivery may create by id.
//
// Pacing: every record sent takes from a budget that grows at max_rate records/s (see
// upstreamBudgetCap), so after a reconnect a backlog drains oldest first at no more
// than max_rate while new records keep joining the outbox behind it. The rate bounds
// everything sent upstream; live late data is normally far below it.
//
// Time comes only from Tick (batch delay, rate, retries, ages), so the actor never
// reads a clock.
type upstream struct {
	env     *env
	cfg     configs.Upstream
	conn    upstreamConn
	blocked *atomic.Bool

	maxRecords int
	maxDelay   int64 // ms
	queues     map[string]*upQueue
	order      []*upQueue // by name
	next       int        // the queue served first on a tick

	now      int64
	tokens   float64 // the rate budget, in records; may be negative by up to one batch
	refilled int64   // processing time of the last refill; 0 before the first tick
	failing  bool    // a publish failure was logged and nothing succeeded since

	sent  prometheus.Counter
	drops prometheus.Counter
}

func newUpstream(e *env, cfg configs.Upstream, conn upstreamConn, blocked *atomic.Bool) *upstream {
	u := &upstream{
		env: e, cfg: cfg, conn: conn, blocked: blocked,
		maxRecords: max(cfg.Batch.MaxRecords, 1),
		maxDelay:   cfg.Batch.MaxDelay.Milliseconds(),
		queues:     map[string]*upQueue{},
		sent:       e.metrics.Sent,
		drops:      e.metrics.Dropped.WithLabelValues(cfg.Outbox.WhenFull),
	}
	u.tokens = upstreamBudgetCap
	return u
}

func (u *upstream) Receive(ctx actor.Context) {
	u.receive(ctx)
	u.noteBusy()
}

// noteBusy tells the runtime whether the actor holds records to send (env.busy).
func (u *upstream) noteBusy() {
	if u.env.busy == nil {
		return
	}
	busy := false
	for _, q := range u.order {
		if q.inflight != nil || len(q.buf) > 0 || q.dirty {
			busy = true
			break
		}
	}
	if u.env.busy.Swap(busy) != busy && busy && u.env.wake != nil {
		u.env.wake()
	}
}

func (u *upstream) receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		u.onStarted()
	case *outbox.Enqueued:
		u.onEnqueued(ctx, m)
	case *upstreamAcked:
		u.onAcked(ctx, m)
	case *outbox.Detach:
		u.onDetach(m)
	case *outbox.Tick:
		u.onTick(ctx, m)
	}
}

// onStarted finds the backlog a previous run left in the store.
func (u *upstream) onStarted() {
	for _, name := range u.backlogQueues() {
		u.queue(name)
	}
}

// onEnqueued learns of committed entries (or, with none, just of the queue's
// committer) and applies the outbox limit before anything else reads them.
func (u *upstream) onEnqueued(ctx actor.Context, m *outbox.Enqueued) {
	q := u.queue(m.Queue)
	if m.ReplyTo != nil {
		q.replyTo = m.ReplyTo
	}
	if len(m.Entries) == 0 {
		return
	}
	q.dirty = true
	u.enforceLimit(q, m.Entries)
	u.pump(ctx, q)
}

// onDetach forgets the committer of a queue whose device a reload replaces: what is
// delivered from now on is deleted here, as a backlog without a committer is, until
// the next committer's Enqueued. Sent to the stopping one, it would be lost and the
// records shipped again at the next start.
func (u *upstream) onDetach(m *outbox.Detach) {
	if q := u.queues[m.Queue]; q != nil {
		q.replyTo = nil
	}
	close(m.Done)
}

func (u *upstream) onAcked(ctx actor.Context, m *upstreamAcked) {
	b := m.batch
	q := b.queue
	if u.queues[q.name] != q || q.inflight != b {
		return // a batch already given up on, or of a previous incarnation of the actor
	}
	var r *refusal
	if errors.As(m.err, &r) {
		u.refuse(ctx, q, b, r)
		return
	}
	if m.err != nil {
		if !u.failing {
			u.env.log.Warn("publishing upstream failed; will retry", "queue", q.name, "err", m.err)
			u.failing = true
		}
		q.rewind(b)
		q.retryAt = u.now + upstreamRetryAfter
		return
	}
	if u.failing {
		u.env.log.Info("publishing upstream works again")
		u.failing = false
	}
	q.inflight = nil
	u.sent.Add(float64(len(b.seqs)))
	u.delivered(ctx, q, b.seqs)
	u.pump(ctx, q)
}

// refuse drops the records a transport says no broker will take, as if delivered,
// counted and logged: a retry cannot succeed and would hold up the queue for good.
// The records acknowledged before them are delivered; the ones after them are sent
// again.
func (u *upstream) refuse(ctx actor.Context, q *upQueue, b *upBatch, r *refusal) {
	done := min(r.acked+r.refused, len(b.seqs))
	refused := b.seqs[min(r.acked, done):done]
	u.env.metrics.Refused.WithLabelValues("upstream").Add(float64(len(refused)))
	u.env.log.Error("dropping upstream records the broker would never take", "queue", q.name, "records", len(refused), "err", r.err)
	u.sent.Add(float64(done - len(refused)))
	q.inflight = nil
	if done < len(b.seqs) {
		q.cursor = b.seqs[done] - 1
		q.forget()
	}
	u.delivered(ctx, q, b.seqs[:done])
	u.pump(ctx, q)
}

// delivered reports entries the upstream broker acknowledged. A queue whose committer
// is unknown (backlog found at start, device not running) is cleaned up here.
func (u *upstream) delivered(ctx actor.Context, q *upQueue, seqs []uint64) {
	if q.replyTo != nil {
		ctx.Send(q.replyTo, &outbox.Delivered{Queue: q.name, Seqs: seqs})
		return
	}
	if err := u.dequeue(q, seqs); err != nil {
		u.env.log.Error("removing delivered entries from the upstream outbox; they stay and are sent again after a restart", "queue", q.name, "err", err)
	}
}

func (u *upstream) onTick(ctx actor.Context, m *outbox.Tick) {
	u.now = m.Now
	u.refill()
	up := u.conn.Connected()
	if up {
		u.env.metrics.Connected.Set(1)
	} else {
		u.env.metrics.Connected.Set(0)
	}
	for _, q := range u.order {
		b := q.inflight
		switch {
		case b == nil:
		case !up:
			b.sentAt = u.now // the client resends it after the reconnect
		case u.now-b.sentAt > upstreamAckTimeout:
			u.env.log.Warn("an upstream batch got no acknowledgement; sending it again", "queue", q.name, "records", len(b.seqs))
			q.rewind(b)
		}
	}
	u.enforceLimit(nil, nil)
	u.updateMetrics()
	// Round robin: the queue after the last one that sent is served first, so queues
	// take turns at the rate budget.
	n, first := len(u.order), u.next
	for i := range n {
		if j := (first + i) % n; u.pump(ctx, u.order[j]) {
			u.next = (j + 1) % n
		}
	}
}

// upstreamAcked is the upstream broker's answer to one batch.
type upstreamAcked struct {
	batch *upBatch
	err   error
}

// queue returns the state of a queue, creating it on first sight.
func (u *upstream) queue(name string) *upQueue {
	if q := u.queues[name]; q != nil {
		return q
	}
	q := newUpQueue(name, u.env.metrics)
	u.queues[name] = q
	i, _ := slices.BinarySearchFunc(u.order, name, func(a *upQueue, n string) int { return strings.Compare(a.name, n) })
	u.order = slices.Insert(u.order, i, q)
	return q
}
