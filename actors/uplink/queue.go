package uplink

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fastjson"

	"github.com/edged/edged/actors/outbox"
)

// upQueue is the upstream actor's view of one device's upstream outbox. The store is
// the source of truth: the actor keeps only a cursor and the next batch's candidates,
// so a backlog of any size costs no memory.
type upQueue struct {
	name, device string
	replyTo      *actor.PID // the device's committer; nil until it sent Enqueued

	// cursor: every entry with seq <= cursor was handed to the client (in flight or
	// delivered). Entries above it are read from the store in order.
	cursor   uint64
	read     uint64         // highest seq read from the store (into buf, or skipped as malformed)
	buf      []outbox.Entry // entries in (cursor, read], oldest first, at most max_records
	dirty    bool           // the store may hold entries above read
	readyAt  int64          // processing time since which buf has been waiting
	inflight *upBatch       // one batch at a time keeps the device's order across retries
	retryAt  int64          // after a refused publish, no batch before this processing time

	oldestSeq uint64 // the entry oldestAt was read from
	oldestAt  int64  // received_at / emitted_at of the oldest entry, ms
	records   prometheus.Gauge
	bytes     prometheus.Gauge
	oldest    prometheus.Gauge
}

// upBatch is one MQTT message in flight: consecutive entries of a queue, one topic.
type upBatch struct {
	queue  *upQueue
	seqs   []uint64
	sentAt int64 // processing time; the ack timeout counts only while connected
}

func newUpQueue(name string, m *Metrics) *upQueue {
	return &upQueue{
		name: name, device: outbox.UpstreamDevice(name), dirty: true,
		records: m.OutboxRecords.WithLabelValues(name),
		bytes:   m.OutboxBytes.WithLabelValues(name),
		oldest:  m.OutboxOldest.WithLabelValues(name),
	}
}

// run returns the length of the batch at the head of buf: the entries that share the
// first one's topic, up to max, and whether it is complete (another topic follows or
// it reached max), so waiting for max_delay cannot make it bigger.
func (q *upQueue) run(max int) (n int, complete bool) {
	for n < len(q.buf) && n < max && q.buf[n].Topic == q.buf[0].Topic {
		n++
	}
	return n, n == max || n < len(q.buf)
}

// forget drops what the actor read ahead, so the next read sees the store again
// (after entries were dropped from it).
func (q *upQueue) forget() {
	q.buf = q.buf[:0]
	q.read = q.cursor
	q.dirty = true
}

// rewind makes a failed batch's entries unsent again; they are read back from the
// store, so the retry keeps the queue's order and the records keep their ids.
func (q *upQueue) rewind(b *upBatch) {
	q.inflight = nil
	q.cursor = b.seqs[0] - 1
	q.forget()
}

// entryTime is when an outbox record was made, for the age of the oldest entry: a late
// record's received_at, a result's emitted_at; 0 if it has neither.
func entryTime(payload []byte) int64 {
	for _, f := range [...]string{"received_at", "emitted_at"} {
		if fastjson.Exists(payload, f) {
			return int64(fastjson.GetInt(payload, f))
		}
	}
	return 0
}
