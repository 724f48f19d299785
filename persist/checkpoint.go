package persist

import (
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// When the state log is checkpointed: once the entries since the last checkpoint hold
// checkpointBytes, or the oldest of them is checkpointEvery old. Bytes bound the
// tail's memory and what a restart reads before it starts; time bounds how long a
// quiet device's changes stay only in the log.
const (
	checkpointBytes = 4 << 20
	checkpointEvery = 5 * time.Second
)

// maybeCheckpoint checkpoints the log when it is due. A failed checkpoint is logged,
// not returned: the commit that triggered it stands, and the log still holds
// everything, so the next one tries again. The caller holds commitMu.
func (s *Store) maybeCheckpoint() {
	s.logMu.RLock()
	due := s.logBytes >= checkpointBytes || (s.logBytes > 0 && time.Since(s.logSince) >= checkpointEvery)
	s.logMu.RUnlock()
	if !due {
		return
	}
	if err := s.checkpoint(); err != nil {
		if s.ckptErrs == 0 {
			s.log.Warn("checkpointing the state log failed; it is tried again with later commits", "dir", s.where, "err", err)
		}
		s.ckptErrs++
		return
	}
	s.ckptErrs = 0
}

// Checkpoint writes every change in the state log under its own key and deletes the
// log entries, so nothing of the store is only in the log. DeleteWindowState and
// DeleteDevice do it first; tests use it to compare the two layouts.
func (s *Store) Checkpoint() (err error) {
	defer s.recovered("checkpointing the state log", &err)
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	return s.checkpoint()
}

// checkpoint is crash-safe at every point: it writes the keys first, then deletes the
// log entries oldest first, in as many transactions as it takes. A crash after some
// keys were written leaves every log entry in place, and replaying them over the new
// keys ends at the same state; a crash while deleting leaves the newest entries,
// which hold the newest change of each key they touch. The caller holds commitMu, so
// no log entry is written meanwhile.
func (s *Store) checkpoint() error {
	s.logMu.Lock()
	frozen, upTo, bytes := s.tail, s.logSeq, s.logBytes
	s.tail = append(frozen[:len(frozen):len(frozen)], newTailMap())
	s.logMu.Unlock()

	w := s.newTxnWriter()
	defer w.discard()
	for _, m := range frozen {
		for k, v := range m.vals {
			if err := w.write([]byte(k), v); err != nil {
				return err
			}
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	for seq := s.logFirst; seq <= upTo; seq++ {
		if err := w.write(logKey(seq), tailVal{del: true}); err != nil {
			return err
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	s.logMu.Lock()
	s.tail = s.tail[len(frozen):]
	s.logFirst = upTo + 1
	s.logBytes -= bytes
	s.logSince = time.Now() // of the first entry after upTo, near enough
	s.logMu.Unlock()
	return nil
}

// txnWriter writes changes in transactions as large as Badger takes.
type txnWriter struct {
	s   *Store
	txn *badger.Txn
}

func (s *Store) newTxnWriter() *txnWriter { return &txnWriter{s: s} }

func (w *txnWriter) write(key []byte, v tailVal) error {
	for range 2 {
		if w.txn == nil {
			w.txn = w.s.db.NewTransaction(true)
		}
		var err error
		if v.del {
			err = w.txn.Delete(key)
		} else {
			err = w.txn.Set(key, v.val)
		}
		if !errors.Is(err, badger.ErrTxnTooBig) {
			return w.s.wrapOpErr(err, key)
		}
		if err := w.flush(); err != nil {
			return err
		}
	}
	return fmt.Errorf("checkpointing %s in %s: one change is too big for a transaction", describeKey(key), w.s.where)
}

// discard drops a transaction left open by an error.
func (w *txnWriter) discard() {
	if w.txn != nil {
		w.txn.Discard()
		w.txn = nil
	}
}

// flush commits the transaction being filled, if any.
func (w *txnWriter) flush() error {
	if w.txn == nil {
		return nil
	}
	err := w.txn.Commit()
	w.txn = nil
	if err != nil {
		return fmt.Errorf("checkpointing the state log in %s: %w", w.s.where, err)
	}
	return nil
}
