package uplink

import (
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/outbox"
)

// upstreamBatch is a batch as a transport sees it: consecutive records of one
// device's upstream outbox for one topic, oldest first.
type upstreamBatch struct {
	device  string
	topic   string // relative to the prefix and the device: late/<stream> or results/<window>
	entries []outbox.Entry
}

// pump sends the queue's next batch if the uplink is up, nothing of the queue is in
// flight, the batch is complete or has waited max_delay, and the rate allows it. It
// reports whether it sent.
func (u *upstream) pump(ctx actor.Context, q *upQueue) bool {
	if q.inflight != nil || u.now < q.retryAt || !u.conn.Connected() {
		return false
	}
	u.fill(q)
	n, complete := q.run(u.maxRecords)
	switch {
	case n == 0:
	case !complete && u.now-q.readyAt < u.maxDelay:
	case u.limited() && u.tokens <= 0:
	default:
		u.send(ctx, q, n)
		return true
	}
	return false
}

// fill reads the entries after the ones already read, up to a full batch. It reads
// only after the store changed (dirty), so an idle or waiting queue costs nothing.
func (u *upstream) fill(q *upQueue) {
	room := u.maxRecords - len(q.buf)
	if !q.dirty || room <= 0 {
		return
	}
	entries, err := u.env.store.Peek(q.name, q.read, room)
	if err != nil {
		u.env.log.Error("reading the upstream outbox", "queue", q.name, "err", err)
		return
	}
	// A short page means the store had nothing more; a later commit sends Enqueued.
	q.dirty = len(entries) == room
	if len(q.buf) == 0 && len(entries) > 0 {
		q.readyAt = u.now
	}
	for _, e := range entries {
		q.read = e.Seq
		oe, err := outbox.Decode(e.Seq, e.Payload)
		if err != nil {
			u.env.log.Error("skipping a malformed upstream outbox entry", "queue", q.name, "err", err)
			continue
		}
		q.buf = append(q.buf, oe)
	}
}

// send publishes the first n entries of buf as one batch.
func (u *upstream) send(ctx actor.Context, q *upQueue, n int) {
	// A copy: buf is reused at once, and a transport may render the batch later.
	entries := slices.Clone(q.buf[:n])
	b := &upBatch{queue: q, seqs: make([]uint64, n), sentAt: u.now}
	for i, e := range entries {
		b.seqs[i] = e.Seq
	}
	q.cursor = entries[n-1].Seq
	q.buf = append(q.buf[:0], q.buf[n:]...)
	q.inflight = b
	if u.limited() {
		u.tokens -= float64(n)
	}
	self, root := ctx.Self(), ctx.ActorSystem().Root
	u.conn.publish(upstreamBatch{device: q.device, topic: entries[0].Topic, entries: entries}, func(err error) {
		root.Send(self, &upstreamAcked{batch: b, err: err})
	})
}

// limited reports whether max_rate paces sending; 0 (or less) means no limit.
func (u *upstream) limited() bool { return u.cfg.MaxRate > 0 }

// upstreamBudgetCap bounds the budget an idle uplink saves up: one record, or what
// one tick earns when that is more. A batch goes out while the budget is positive and
// takes it negative by its size, so no queue starves waiting for a full batch's worth
// while others take single records. The budget is spent only on a tick or a PUBACK,
// so what a tick earns must stay spendable until the next one: capped at one record,
// a max_rate above max_records per tick interval could never be reached. Over any
// stretch of t seconds at most max_rate·t records go out, plus one tick's earnings
// and one batch.
const upstreamBudgetCap = 1

// refill adds the budget earned since the last tick.
func (u *upstream) refill() {
	if u.refilled != 0 && u.now > u.refilled {
		earned := u.cfg.MaxRate * float64(u.now-u.refilled) / 1000
		u.tokens = min(max(upstreamBudgetCap, earned), u.tokens+earned)
	}
	u.refilled = u.now
}
