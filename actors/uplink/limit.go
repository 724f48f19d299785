package uplink

import (
	"cmp"
	"slices"

	"github.com/edged/edged/actors/outbox"
)

// Outbox policies when the upstream outboxes together hold more than outbox.max_bytes.
const (
	policyDropOldest = "drop_oldest" // delete the oldest unsent records of the biggest queue
	policyDropNewest = "drop_newest" // delete the records just enqueued beyond the limit
	policyBlock      = "block"       // keep everything; intake stops until the outbox shrinks
)

// dropChunkUp bounds the entries read per step while choosing what to drop.
const dropChunkUp = 256

// enforceLimit applies the outbox policy. fresh are the entries of q just enqueued
// (drop_newest looks only at those); nil on a tick.
//
// Sizes are the store's (encoded entries), summed over the upstream queues. Entries
// already delivered but not yet deleted by their committer still count for up to a
// commit interval, and entries in flight are never dropped: they may already have
// reached the cloud, and a record must not be both delivered and counted as dropped.
// Under block, the outbox overshoots the limit by what was in the pipelines when the
// intake stopped.
func (u *upstream) enforceLimit(q *upQueue, fresh []outbox.Entry) {
	limit := u.cfg.Outbox.MaxBytes
	if limit <= 0 {
		return
	}
	total := u.totalBytes()
	switch u.cfg.Outbox.WhenFull {
	case policyDropOldest:
		for total > limit {
			freed := u.dropOldest(total - limit)
			if freed == 0 {
				return
			}
			total -= freed
		}
	case policyDropNewest:
		if q != nil && total > limit {
			u.dropNewest(q, fresh, total-limit)
		}
	case policyBlock:
		u.blocked.Store(total >= limit)
	}
}

func (u *upstream) totalBytes() int64 {
	var total int64
	for _, q := range u.order {
		total += u.env.store.Stats(q.name).Bytes
	}
	return total
}

// dropOldest deletes at least excess bytes of the oldest unsent entries of the queue
// holding the most bytes, or as many as it has; it returns the bytes freed.
func (u *upstream) dropOldest(excess int64) int64 {
	byBytes := slices.Clone(u.order)
	slices.SortStableFunc(byBytes, func(a, b *upQueue) int {
		return cmp.Compare(u.env.store.Stats(b.name).Bytes, u.env.store.Stats(a.name).Bytes)
	})
	for _, q := range byBytes {
		var seqs []uint64
		var freed int64
		for after := q.cursor; freed < excess; {
			entries, err := u.env.store.Peek(q.name, after, dropChunkUp)
			if err != nil {
				u.env.log.Error("reading the upstream outbox to drop from it", "queue", q.name, "err", err)
				return 0
			}
			if len(entries) == 0 {
				break
			}
			for _, e := range entries {
				if freed >= excess {
					break
				}
				seqs = append(seqs, e.Seq)
				freed += int64(len(e.Payload))
				after = e.Seq
			}
		}
		if len(seqs) > 0 {
			return u.drop(q, seqs, freed)
		}
	}
	return 0
}

// dropNewest deletes the newest of the fresh entries until excess bytes are freed.
// Entries already sent stay: they cannot be taken back.
func (u *upstream) dropNewest(q *upQueue, fresh []outbox.Entry, excess int64) {
	var seqs []uint64
	var freed int64
	for i := len(fresh) - 1; i >= 0 && freed < excess; i-- {
		if fresh[i].Seq <= q.cursor {
			break
		}
		seqs = append(seqs, fresh[i].Seq)
		freed += fresh[i].Size()
	}
	if len(seqs) > 0 {
		u.drop(q, seqs, freed)
	}
}

// drop deletes unsent entries under the outbox policy and counts them; it returns the
// bytes freed, 0 if the delete failed.
func (u *upstream) drop(q *upQueue, seqs []uint64, bytes int64) int64 {
	if err := u.dequeue(q, seqs); err != nil {
		u.env.log.Error("dropping from the full upstream outbox", "queue", q.name, "policy", u.cfg.Outbox.WhenFull, "err", err)
		return 0
	}
	u.drops.Add(float64(len(seqs)))
	q.forget() // the dropped entries may have been read already
	return bytes
}

// dequeue deletes entries of q in one transaction.
func (u *upstream) dequeue(q *upQueue, seqs []uint64) error {
	b := u.env.store.NewBatch()
	for _, s := range seqs {
		b.Dequeue(q.name, s)
	}
	return u.env.store.Commit(b)
}

// backlogQueues lists the upstream queues that hold entries, so a fresh actor ships
// what a previous run left. persist has no list of queues, so this asks for every
// device with state; a persist.Store.Queues(prefix) would be exact and cheaper.
func (u *upstream) backlogQueues() []string {
	devices, err := u.env.store.Devices()
	if err != nil {
		u.env.log.Error("listing devices to find the upstream backlog", "err", err)
		return nil
	}
	var names []string
	for _, d := range devices {
		if name := outbox.UpstreamQueue(d); u.env.store.Stats(name).Records > 0 {
			names = append(names, name)
		}
	}
	return names
}

// updateMetrics publishes each queue's size and the age of its oldest entry (from the
// entry's received_at or emitted_at, against processing time).
func (u *upstream) updateMetrics() {
	for _, q := range u.order {
		st := u.env.store.Stats(q.name)
		q.records.Set(float64(st.Records))
		q.bytes.Set(float64(st.Bytes))
		if st.Records == 0 {
			q.oldestSeq, q.oldestAt = 0, 0
			q.oldest.Set(0)
			continue
		}
		if st.OldestSeq != q.oldestSeq {
			q.oldestSeq, q.oldestAt = st.OldestSeq, 0
			if entries, err := u.env.store.Peek(q.name, st.OldestSeq-1, 1); err == nil && len(entries) == 1 {
				if oe, err := outbox.Decode(entries[0].Seq, entries[0].Payload); err == nil {
					q.oldestAt = entryTime(oe.Payload)
				}
			}
		}
		var age int64 // unknown for an entry without a time
		if q.oldestAt > 0 {
			age = max(u.now-q.oldestAt, 0)
		}
		q.oldest.Set(float64(age) / 1000)
	}
}
