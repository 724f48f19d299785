package persist

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// Commit writes b in one transaction, or in several of at most maxTxnOps changes
// each. If Badger says a transaction is too big, it commits the longest run of whole
// units that fits, then the rest, so each unit stays atomic; a single unit too big
// for a transaction is an error, and so is a disk below Options.MinFreeDisk (nothing
// is written then). With Power durability each transaction is fsynced before Commit
// returns. On error, the units not yet written are still in b and a later Commit of
// b retries them.
func (s *Store) Commit(b *Batch) (err error) {
	defer s.recovered("committing", &err)
	b.EndUnit()
	if err := s.disk.check(); err != nil {
		return fmt.Errorf("committing state in %s: %w", s.where, err)
	}
	if b.queue {
		s.queueMu.Lock()
		defer s.queueMu.Unlock()
	}
	for b.done < len(b.units) {
		n, err := s.commitUnits(b)
		if err != nil {
			return err
		}
		b.done += n
	}
	return nil
}

// commitUnits commits as many of b's pending units as fit in one transaction and
// says how many it committed.
func (s *Store) commitUnits(b *Batch) (int, error) {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	end := b.unitsUpTo(b.done, maxTxnOps)
	for {
		t, fit, err := s.build(b, b.done, end)
		if err == nil {
			err = t.txn.Commit()
			if err != nil {
				return 0, fmt.Errorf("committing state in %s: %w", s.where, err)
			}
			s.applyQueueChanges(t.queues)
			s.marksCommitted(&t, s.commits+1)
			s.committed()
			s.loggedLocked(&t)
			return end - b.done, nil
		}
		t.txn.Discard()
		if !errors.Is(err, badger.ErrTxnTooBig) {
			return 0, err
		}
		if fit == end-b.done {
			fit-- // every unit fitted, the queue counters did not
		}
		if fit == 0 {
			first := b.unitStart(b.done)
			return 0, fmt.Errorf("committing state in %s: one unit of %d changes is too big for a transaction",
				s.where, b.units[b.done]-first)
		}
		end = b.done + fit
	}
}

// maxTxnOps bounds the changes of one transaction, so that Badger's copy of it (an
// entry, a pending write and a versioned key per change) stays a few hundred KB
// rather than growing with a burst's batch (10,000 windows firing at once, a replay
// of 10,000 sensors): such a batch commits in several transactions, each of whole
// units, as one too big for Badger does. A steady commit of a gateway's 1,000
// sensors (a window state and a stream state each, plus dedup marks) fits in one.
const maxTxnOps = 4096

// unitsUpTo returns the end of the longest run of units from from whose changes
// number at most maxOps, and at least one unit.
func (b *Batch) unitsUpTo(from, maxOps int) int {
	start := b.unitStart(from)
	end := from + 1
	for end < len(b.units) && b.units[end]-start <= maxOps {
		end++
	}
	return end
}

// committed counts a transaction that Badger committed and records the count in the
// marker. The marker may lag the store, never lead it: it is written after the
// commit returned, and with Power durability after the commit was synced. A failed
// write only lets it lag further, so it is logged, not returned: the commit stands.
// The caller holds commitMu.
func (s *Store) committed() {
	s.commits++
	if s.marker == nil {
		return
	}
	if err := s.marker.write(marker{Seq: s.commits, Boot: s.boot}, false); err != nil {
		if s.markerErrs == 0 {
			s.log.Warn("recording the commit count failed; the damage check at the next start is weaker until it works", "dir", s.where, "err", err)
		}
		s.markerErrs++
		return
	}
	s.markerErrs = 0
}

// txnBuild is one transaction being filled, with the outbox changes it makes.
type txnBuild struct {
	txn     *badger.Txn
	queues  map[string]*queueChange
	entries []badger.Entry // the transaction's writes, one allocation for all of them
	marks   markTxn        // its dedup marks (logMarks)
	logged  []logRec       // changes to logged keys, written as state-log blocks
	blocks  []int          // the encoded size of each block written
	dead    []uint64       // blocks deleted: they hold nothing current
}

// entry is badger.NewEntry(key, val) taken from the transaction's slab. Badger keeps
// a pointer to each entry until the commit returns; one slab instead of an allocation
// per write. A slab that fills is replaced, and the entries already handed out keep
// the old one alive.
func (t *txnBuild) entry(key, val []byte) *badger.Entry {
	if len(t.entries) == cap(t.entries) {
		t.entries = make([]badger.Entry, 0, max(16, 2*cap(t.entries)))
	}
	t.entries = append(t.entries, badger.Entry{Key: key, Value: val})
	return &t.entries[len(t.entries)-1]
}

// set writes val under key in the transaction.
func (t *txnBuild) set(key, val []byte) error { return t.txn.SetEntry(t.entry(key, val)) }

// build adds units [from, to) to a new transaction. On ErrTxnTooBig, fit is the
// number of whole units that went in before the limit was hit.
func (s *Store) build(b *Batch, from, to int) (t txnBuild, fit int, err error) {
	ops := b.units[to-1] - b.unitStart(from)
	t = txnBuild{txn: s.db.NewTransaction(true), entries: make([]badger.Entry, 0, ops+1)}
	if err := t.set(commitKey, appendCounter(nil, s.commits+1)); err != nil {
		return t, 0, s.wrapOpErr(err, commitKey)
	}
	for u := from; u < to; u++ {
		for _, o := range b.ops[b.unitStart(u):b.units[u]] {
			if err := s.addOp(&t, o); err != nil {
				return t, u - from, err
			}
		}
	}
	if err := s.logMarks(&t); err != nil {
		return t, to - from, err
	}
	if err := s.writeBlocks(&t); err != nil {
		return t, to - from, err
	}
	for name, c := range t.queues {
		if c.maxSeq == 0 {
			continue
		}
		if err := t.set(counterKey(nil, name), appendCounter(nil, c.maxSeq)); err != nil {
			return t, to - from, s.wrapOpErr(err, counterKey(nil, name))
		}
	}
	return t, to - from, nil
}

func (b *Batch) unitStart(u int) int {
	if u == 0 {
		return 0
	}
	return b.units[u-1]
}

func (s *Store) addOp(t *txnBuild, o op) error {
	var err error
	if (o.kind == opPut || o.kind == opDelete) && s.states != nil && loggedTag(o.key[0]) {
		t.logged = append(t.logged, logRec{key: o.key, val: o.val, del: o.kind == opDelete})
		return nil
	}
	switch o.kind {
	case opPut:
		err = t.set(o.key, o.val)
	case opDelete:
		err = t.txn.Delete(o.key)
	case opMark:
		t.marks.fps = append(t.marks.fps, o.seq)
	case opEnqueue:
		c := t.change(o.queue)
		if last := max(c.maxSeq, s.committedSeq(o.queue)); o.seq <= last {
			return fmt.Errorf("committing state in %s: outbox %q got seq %d after seq %d was committed: "+
				"a queue needs one writer committing its batches in order", s.where, o.queue, o.seq, last)
		}
		if err = t.set(o.key, o.val); err == nil {
			c.records++
			c.bytes += int64(len(o.val))
			c.maxSeq = o.seq
		}
	case opDequeue:
		err = s.dequeue(t, o)
	}
	return s.wrapOpErr(err, o.key)
}

func (s *Store) wrapOpErr(err error, key []byte) error {
	if err == nil || errors.Is(err, badger.ErrTxnTooBig) {
		return err
	}
	return fmt.Errorf("writing %s to state in %s: %w", describeKey(key), s.where, err)
}

// dequeue deletes an outbox entry if it exists (also if this transaction added it),
// counting its size so the queue stats stay exact.
func (s *Store) dequeue(t *txnBuild, o op) error {
	item, err := t.txn.Get(o.key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var n int
	if err := item.Value(func(v []byte) error { n = len(v); return nil }); err != nil {
		return err
	}
	if err := t.txn.Delete(o.key); err != nil {
		return err
	}
	c := t.change(o.queue)
	c.records--
	c.bytes -= int64(n)
	c.dequeued = true
	return nil
}

func (t *txnBuild) change(queue string) *queueChange {
	if t.queues == nil {
		t.queues = map[string]*queueChange{}
	}
	c := t.queues[queue]
	if c == nil {
		c = &queueChange{}
		t.queues[queue] = c
	}
	return c
}
