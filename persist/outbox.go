package persist

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/dgraph-io/badger/v4"
)

// Entry is one outbox record.
type Entry struct {
	Seq     uint64
	Payload []byte
}

// QueueStats describe one outbox queue. Bytes counts payload bytes only.
type QueueStats struct {
	Records   int
	Bytes     int64
	OldestSeq uint64 // 0 when the queue is empty
}

type queueState struct {
	stats     QueueStats
	allocated uint64 // last seq handed out by Enqueue
	committed uint64 // highest seq written to the queue's counter
}

// queueChange is what one transaction does to a queue.
type queueChange struct {
	records  int
	bytes    int64
	maxSeq   uint64 // highest seq enqueued, 0 if none
	dequeued bool
}

// corruptCounterJump is how far past the highest stored entry a queue's counter
// restarts when the counter itself cannot be read: far enough that no sequence
// number handed out before can come again, without failing Open over one value.
const corruptCounterJump = 1 << 32

func (s *Store) queueLocked(name string) *queueState {
	q := s.queues[name]
	if q == nil {
		q = &queueState{}
		s.queues[name] = q
	}
	return q
}

func (s *Store) allocSeq(queue string) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queueLocked(queue)
	q.allocated++
	return q.allocated
}

func (s *Store) committedSeq(queue string) uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if q := s.queues[queue]; q != nil {
		return q.committed
	}
	return 0
}

// applyQueueChanges updates the in-memory stats after a committed transaction.
// The caller holds queueMu, so the oldest entry it looks up is still current.
func (s *Store) applyQueueChanges(changes map[string]*queueChange) {
	for name, c := range changes {
		s.mu.Lock()
		q := s.queueLocked(name)
		// Every entry before from is deleted: those up to the counter when the queue
		// was empty, else those before the oldest one known.
		from := q.stats.OldestSeq
		if q.stats.Records == 0 {
			from = q.committed + 1
		}
		q.stats.Records += c.records
		q.stats.Bytes += c.bytes
		q.committed = max(q.committed, c.maxSeq)
		records, known := q.stats.Records, q.stats.OldestSeq
		if records == 0 {
			q.stats.OldestSeq = 0
		}
		s.mu.Unlock()
		if records > 0 && (c.dequeued || from > known) {
			oldest := s.oldestSeq(name, from)
			s.mu.Lock()
			q.stats.OldestSeq = oldest
			s.mu.Unlock()
		}
	}
}

// oldestSeq looks up the first entry of a queue at or after seq from, the oldest
// known before; 0 if it is empty or unreadable. Entries are only ever added after
// the oldest, so the ones before from are all deleted: a seek from the queue's start
// would step over every one of them still in the tables, which is as many as the
// queue delivered since the last compaction, at every commit that delivers.
func (s *Store) oldestSeq(queue string, from uint64) uint64 {
	var seq uint64
	err := s.db.View(func(txn *badger.Txn) error {
		prefix := outboxPrefix(queue)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		it.Seek(outboxKey(nil, queue, from))
		if it.Valid() {
			seq = binary.BigEndian.Uint64(it.Item().Key()[len(prefix):])
		}
		return nil
	})
	if err != nil {
		s.log.Warn("reading the oldest outbox entry failed", "queue", queue, "err", err)
	}
	return seq
}

// loadQueues rebuilds every queue's stats and counter by scanning the outbox.
func (s *Store) loadQueues() error {
	err := s.db.View(func(txn *badger.Txn) error {
		if err := s.scanOutbox(txn); err != nil {
			return err
		}
		return s.scanCounters(txn)
	})
	for _, q := range s.queues {
		q.allocated = q.committed
	}
	return err
}

func (s *Store) scanOutbox(txn *badger.Txn) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagOutbox}})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		r := keyReader{b: item.Key()[1:]}
		name, seq := r.seg(), r.uint64()
		if r.done() != nil {
			return fmt.Errorf("opening state in %s: %s", s.where, describeKey(item.Key()))
		}
		var n int
		if err := item.Value(func(v []byte) error { n = len(v); return nil }); err != nil {
			return fmt.Errorf("opening state in %s: reading %s: %w", s.where, describeKey(item.Key()), err)
		}
		q := s.queueLocked(name)
		if q.stats.Records == 0 {
			q.stats.OldestSeq = seq
		}
		q.stats.Records++
		q.stats.Bytes += int64(n)
		q.committed = max(q.committed, seq)
	}
	return nil
}

func (s *Store) scanCounters(txn *badger.Txn) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagCounter}})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		r := keyReader{b: item.Key()[1:]}
		name := r.seg()
		if r.done() != nil {
			return fmt.Errorf("opening state in %s: %s", s.where, describeKey(item.Key()))
		}
		q := s.queueLocked(name)
		err := item.Value(func(v []byte) error {
			seq, err := decodeCounter(v)
			q.committed = max(q.committed, seq)
			return err
		})
		if err != nil {
			q.committed += corruptCounterJump
			s.log.Warn("an outbox counter is unreadable; its sequence numbers jump ahead",
				"err", &DecodeError{Key: describeKey(item.Key()), Err: err}, "next", q.committed+1)
		}
	}
	return nil
}

// Stats returns a queue's size, kept in memory: exact, O(1), rebuilt at Open.
func (s *Store) Stats(queue string) QueueStats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if q := s.queues[queue]; q != nil {
		return q.stats
	}
	return QueueStats{}
}

// Peek returns up to max entries with seq > after, oldest first.
func (s *Store) Peek(queue string, after uint64, max int) (_ []Entry, err error) {
	defer s.recovered("reading an outbox", &err)
	if after == math.MaxUint64 || max <= 0 {
		return nil, nil
	}
	var out []Entry
	err = s.db.View(func(txn *badger.Txn) error {
		prefix := outboxPrefix(queue)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: min(max, 100)})
		defer it.Close()
		for it.Seek(outboxKey(nil, queue, after+1)); it.Valid() && len(out) < max; it.Next() {
			item := it.Item()
			p, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			out = append(out, Entry{Seq: binary.BigEndian.Uint64(item.Key()[len(prefix):]), Payload: p})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading outbox %q in %s: %w", queue, s.where, err)
	}
	return out, nil
}

// dropChunk bounds the entries DropOldest deletes per transaction.
const dropChunk = 1000

// DropOldest deletes up to n of a queue's oldest entries (the drop_oldest policy of
// a full outbox) and says how many it deleted.
func (s *Store) DropOldest(queue string, n int) (_ int, err error) {
	defer s.recovered("dropping from an outbox", &err)
	s.queueMu.Lock()
	defer s.queueMu.Unlock()
	dropped := 0
	for dropped < n {
		c, err := s.dropSome(queue, min(n-dropped, dropChunk))
		if err != nil {
			return dropped, fmt.Errorf("dropping from outbox %q in %s: %w", queue, s.where, err)
		}
		if c.records == 0 {
			break
		}
		s.applyQueueChanges(map[string]*queueChange{queue: c})
		dropped -= c.records
	}
	return dropped, nil
}

func (s *Store) dropSome(queue string, n int) (*queueChange, error) {
	c := &queueChange{dequeued: true}
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	var keys [][]byte
	it := txn.NewIterator(badger.IteratorOptions{Prefix: outboxPrefix(queue)})
	for it.Rewind(); it.Valid() && len(keys) < n; it.Next() {
		item := it.Item()
		var size int
		if err := item.Value(func(v []byte) error { size = len(v); return nil }); err != nil {
			it.Close()
			return nil, err
		}
		keys = append(keys, item.KeyCopy(nil))
		c.records--
		c.bytes -= int64(size)
	}
	it.Close()
	for _, k := range keys {
		if err := txn.Delete(k); err != nil {
			return nil, err
		}
	}
	if len(keys) == 0 {
		return c, nil
	}
	return c, txn.Commit()
}
