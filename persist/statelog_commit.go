package persist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"
)

// writeBlocks adds the transaction's changes to logged keys as state-log blocks,
// sorted by key (stably: of two changes to one key the later wins, as in Badger's
// transaction), and deletes the blocks that hold nothing current.
func (s *Store) writeBlocks(t *txnBuild) error {
	if s.states == nil {
		return nil
	}
	slices.SortStableFunc(t.logged, func(a, b logRec) int { return bytes.Compare(a.key, b.key) })
	recs := t.logged
	for len(recs) > 0 {
		n, raw := 0, 0
		for n < len(recs) && (n == 0 || raw+recs[n].rawSize() <= maxBlockRaw) {
			raw += recs[n].rawSize()
			n++
		}
		seq := s.states.next() + uint64(len(t.blocks))
		key := logKey(nil, seq)
		val := s.states.encoder.encode(nil, recs[:n])
		if err := t.set(key, val); err != nil {
			return s.wrapOpErr(err, key)
		}
		for i := range recs[:n] {
			recs[i].seq = seq
		}
		t.blocks = append(t.blocks, len(key)+len(val))
		recs = recs[n:]
	}
	t.dead = s.states.dead()
	for _, seq := range t.dead {
		if err := t.txn.Delete(logKey(nil, seq)); err != nil {
			return s.wrapOpErr(err, logKey(nil, seq))
		}
	}
	return nil
}

// loggedLocked takes in what a committed transaction did to the state log and ages
// blocks when that is due. The caller holds commitMu. Aging that fails is logged
// and tried again after the next commit: the blocks hold everything.
func (s *Store) loggedLocked(t *txnBuild) {
	if s.states == nil {
		return
	}
	now := s.now()
	s.states.deleted(t.dead, 0)
	s.states.added(t.blocks, t.logged, now)
	if err := s.ageLocked(s.states.ageCut(now)); err != nil {
		s.log.Warn("writing the oldest values of the state log under their keys failed; its blocks keep them and it is tried again", "dir", s.where, "err", err)
	}
}

// Checkpoint writes every value of the state log under its own key and deletes the
// blocks; it does nothing in memory or read-only. Commits wait meanwhile. Close
// checkpoints, and so do the reads and deletions that need every value under its
// key: a device's deletion, or an index whose snapshot outlives the next aging.
func (s *Store) Checkpoint() (err error) {
	defer s.recovered("writing a checkpoint", &err)
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if s.states == nil || s.states.readOnly {
		return nil
	}
	return s.ageLocked(s.states.next())
}

// ageLocked writes the current values of the blocks before cut under their own keys,
// then deletes those blocks, oldest first, so a crash part way leaves blocks whose
// replay over the keys gives the same values (see stateLog). A deletion is written
// only for a key Badger holds. The caller holds commitMu.
func (s *Store) ageLocked(cut uint64) error {
	l := s.states
	if cut <= l.first {
		return nil
	}
	if err := s.disk.check(); err != nil {
		return fmt.Errorf("writing state-log values in %s: %w", s.where, err)
	}
	l.aging.Lock()
	defer l.aging.Unlock()
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	err := s.db.View(func(txn *badger.Txn) error {
		for _, r := range l.under(nil, cut) {
			if !r.del {
				if err := wb.Set(r.key, r.val); err != nil {
					return err
				}
				continue
			}
			if _, err := txn.Get(r.key); errors.Is(err, badger.ErrKeyNotFound) {
				continue
			} else if err != nil {
				return err
			}
			if err := wb.Delete(r.key); err != nil {
				return err
			}
		}
		return nil
	})
	for seq := l.first; seq < cut && err == nil; seq++ {
		if !l.block(seq).deleted {
			err = wb.Delete(logKey(nil, seq))
		}
	}
	if err == nil {
		err = wb.Flush()
	}
	if err != nil {
		return fmt.Errorf("writing state-log values in %s: %w", s.where, err)
	}
	l.deleted(nil, cut)
	return nil
}

// loadStateLog reads the blocks a store holds back into its state log, in order. A
// block that does not decode is logged and left out (and deleted by the next
// commit, as a block holding nothing current): the keys keep the values of the
// last aging, or of a later block.
func (s *Store) loadStateLog(readOnly bool) (err error) {
	defer s.recovered("reading the state log", &err)
	var zr *zstd.Decoder
	defer func() {
		if zr != nil {
			zr.Close()
		}
	}()
	l, now := s.states, s.now()
	err = s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagStateLog}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			k := item.Key()
			if len(k) != 9 {
				s.log.Warn("a stored value is unreadable and was left out", "err", &DecodeError{Key: describeKey(k), Err: fmt.Errorf("%w: malformed key", ErrCorrupt)})
				continue
			}
			seq := binary.BigEndian.Uint64(k[1:])
			if len(l.blocks) == 0 {
				l.first = seq
			}
			for l.next() < seq { // deleted while the blocks around it were not
				l.blocks = append(l.blocks, logBlock{deleted: true})
			}
			if zr == nil {
				var err error
				if zr, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)); err != nil {
					return err
				}
			}
			err := item.Value(func(v []byte) error {
				recs, derr := decodeBlock(zr, v)
				if derr != nil {
					s.log.Warn("a stored value is unreadable and was left out", "err", &DecodeError{Key: describeKey(k), Err: derr})
					recs = nil
				}
				for i := range recs {
					recs[i].seq = seq
				}
				l.added([]int{len(k) + len(v)}, recs, now)
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading the state log in %s: %w", s.where, err)
	}
	l.readOnly = readOnly
	return nil
}
