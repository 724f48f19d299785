package persist

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"
)

// writeBlocks adds the transaction's changes to logged keys as state-log blocks,
// sorted by key (stably: of two changes to one key the later wins, as in Badger's
// transaction).
func (s *Store) writeBlocks(t *txnBuild) error {
	if len(t.logged) == 0 {
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
		key := logKey(nil, s.states.next+uint64(t.blocks))
		val := s.states.encoder.encode(nil, recs[:n])
		if err := t.set(key, val); err != nil {
			return s.wrapOpErr(err, key)
		}
		t.blocks++
		t.bytes += len(key) + len(val)
		recs = recs[n:]
	}
	return nil
}

// loggedLocked takes in what a committed transaction wrote to the state log and
// checkpoints when that is due. The caller holds commitMu. A checkpoint that fails
// is logged and tried again after the next commit: the blocks hold everything.
func (s *Store) loggedLocked(t *txnBuild) {
	if t.blocks == 0 {
		return
	}
	s.states.apply(t.logged)
	now := time.Now()
	s.states.wrote(t.blocks, t.bytes, now)
	if !s.states.due(now) {
		return
	}
	if err := s.checkpointLocked(); err != nil {
		s.log.Warn("writing a checkpoint of the state log failed; its blocks keep the state and it is tried again", "dir", s.where, "err", err)
	}
}

// Checkpoint writes what the state log holds under each key's own key and deletes
// its blocks. Commits wait meanwhile. Close checkpoints; so do the reads that need
// the store without a log over it.
func (s *Store) Checkpoint() (err error) {
	defer s.recovered("writing a checkpoint", &err)
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	return s.checkpointLocked()
}

// checkpointLocked writes the logged values first and deletes the blocks after, in
// order, so a crash part way leaves blocks whose replay over the keys gives what
// the log held: the values written are the newest, and a block left is never
// older than one deleted. The caller holds commitMu.
func (s *Store) checkpointLocked() error {
	if s.states == nil || s.states.readOnly || s.states.empty() {
		return nil
	}
	if err := s.disk.check(); err != nil {
		return fmt.Errorf("writing a checkpoint in %s: %w", s.where, err)
	}
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for _, r := range s.states.all() {
		var err error
		if r.del {
			err = wb.Delete(r.key)
		} else {
			err = wb.Set(r.key, r.val)
		}
		if err != nil {
			return fmt.Errorf("writing a checkpoint in %s: %w", s.where, err)
		}
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("writing a checkpoint in %s: %w", s.where, err)
	}
	del := s.db.NewWriteBatch()
	defer del.Cancel()
	for seq := s.states.first; seq < s.states.next; seq++ {
		if err := del.Delete(logKey(nil, seq)); err != nil {
			return fmt.Errorf("writing a checkpoint in %s: %w", s.where, err)
		}
	}
	if err := del.Flush(); err != nil {
		return fmt.Errorf("writing a checkpoint in %s: %w", s.where, err)
	}
	s.states.checkpointed()
	return nil
}

// loadStateLog reads the blocks a store holds back into its state log, in order. A
// block that does not decode is logged and left out: the keys keep the values of
// the last checkpoint, or of a later block.
func (s *Store) loadStateLog(readOnly bool) (err error) {
	defer s.recovered("reading the state log", &err)
	var zr *zstd.Decoder
	defer func() {
		if zr != nil {
			zr.Close()
		}
	}()
	var blocks, size int
	err = s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagLog}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			k := item.Key()
			if len(k) != 9 {
				s.log.Warn("a stored value is unreadable and was left out", "err", &DecodeError{Key: describeKey(k), Err: fmt.Errorf("%w: malformed key", ErrCorrupt)})
				continue
			}
			seq := binary.BigEndian.Uint64(k[1:])
			if blocks == 0 {
				s.states.first = seq
			}
			s.states.next = seq + 1
			blocks++
			if zr == nil {
				var err error
				if zr, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)); err != nil {
					return err
				}
			}
			err := item.Value(func(v []byte) error {
				size += len(k) + len(v)
				recs, derr := decodeBlock(zr, v)
				if derr != nil {
					s.log.Warn("a stored value is unreadable and was left out", "err", &DecodeError{Key: describeKey(k), Err: derr})
					return nil
				}
				s.states.apply(recs)
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
	s.states.readOnly = readOnly
	if blocks > 0 {
		s.states.bytes, s.states.oldest = int64(size), time.Now()
	}
	return nil
}
