package persist

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// ErrLocked is wrapped by Open when another process holds the state directory.
var ErrLocked = errors.New("another edged process holds it")

// Store is edged's state database. It is safe for concurrent use.
type Store struct {
	db    *badger.DB
	where string // the directory, or "memory", for error messages
	ttl   time.Duration
	now   func() time.Time // Options.clock
	log   *slog.Logger
	lock  *dirLock // nil in memory
	disk  diskReserve

	// commitMu makes the commit count and the order of commits the same: each
	// transaction writes the count it brings the store to, so the newest version
	// of commitKey is the highest count, which Open compares with the marker.
	commitMu   sync.Mutex
	commits    uint64
	marker     *markerFile // nil when read-only or in memory
	boot       string      // bootID() at open, for marker records
	markerErrs int         // marker writes failed in a row, to log the first only
	notClosed  bool        // read-only: its last writer did not close it (NotClosedCleanly)
	// states holds the window, valve, stream and uptime values committed since the
	// last checkpoint (statelog.go); nil in memory, where they are written as keys.
	states *stateLog

	// queueMu serializes every change to the outbox (commits with enqueues or
	// dequeues, DropOldest) so sequence numbers land in order and stats stay exact.
	queueMu sync.Mutex
	mu      sync.RWMutex // guards queues
	queues  map[string]*queueState

	sealer *markSealer // nil when read-only
}

// Open opens (creating if needed) the state database described by o. A directory
// locked by another process fails with an error wrapping ErrLocked; a damaged
// directory, or one holding less than edged committed to it, with one wrapping
// ErrDamaged, before anything in it is changed.
func Open(o Options) (*Store, error) {
	o = o.withDefaults()
	if o.Durability == Memory {
		s, err := openBadger(o, "memory", nil, diskReserve{})
		if err != nil {
			return nil, err
		}
		if err := s.startSealer(); err != nil {
			s.db.Close()
			return nil, err
		}
		return s, nil
	}
	if o.Dir == "" {
		return nil, errors.New("opening state: no directory given")
	}
	if !o.ReadOnly {
		// Opening writes (a new memtable's log, the manifest): not on a full disk.
		// The directory may not exist yet: its nearest existing ancestor tells.
		if err := (diskReserve{dir: existingAncestor(o.Dir), min: o.MinFreeDisk}).check(); err != nil {
			return nil, fmt.Errorf("opening state in %s: %w; free some space and start again", o.Dir, err)
		}
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("opening state in %s: %w", o.Dir, err)
		}
	} else if _, err := os.Stat(o.Dir); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("cannot read the state in %s: %w", o.Dir, ErrNoState)
	}
	disk := newDiskReserve(o.Dir, o.MinFreeDisk)
	lock, err := lockDir(o.Dir, o.ReadOnly)
	if err != nil {
		return nil, err
	}
	pre, err := checkBeforeOpen(o)
	if err != nil {
		lock.release()
		return nil, err
	}
	s, err := openBadger(o, o.Dir, lock, disk)
	if err != nil {
		lock.release()
		return nil, err
	}
	if err := s.afterOpen(pre, o); err != nil {
		s.db.Close()
		lock.release()
		return nil, err
	}
	if !o.ReadOnly {
		err = s.startSealer()
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openBadger opens Badger and loads the outbox counters. Badger panics on some
// damage (a table it cannot index); that becomes an error naming the directory.
func openBadger(o Options, where string, lock *dirLock, disk diskReserve) (s *Store, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, refuse(where, "Badger panicked opening it: %v", firstLine(r))
		}
	}()
	db, err := badger.Open(o.badgerOptions())
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, fmt.Errorf("opening state in %s: the directory is locked: %w", where, ErrLocked)
		}
		return nil, fmt.Errorf("opening state in %s: %w", where, err)
	}
	s = &Store{db: db, where: where, ttl: o.DedupTTL, now: o.clock, log: o.Logger, lock: lock, disk: disk, queues: map[string]*queueState{}}
	if err := s.loadQueues(); err != nil {
		db.Close()
		return nil, err
	}
	if o.Durability != Memory {
		s.states = newStateLog(o.memTableSize)
		if err := s.loadStateLog(o.ReadOnly); err != nil {
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

// afterOpen compares the commit count Badger kept with the marker and, for a
// writable store, marks it open: until Close marks it clean, the next Open knows
// the store may hold commits its WAL has not replayed yet.
func (s *Store) afterOpen(pre preOpen, o Options) error {
	n, err := s.readCommits()
	if err != nil {
		return err
	}
	if err := pre.checkSeq(s.where, n, o); err != nil {
		return err
	}
	s.commits, s.boot = n, bootID()
	if o.ReadOnly {
		s.notClosed = pre.notClosed
		return nil
	}
	s.marker, err = openMarker(o.Dir, pre.gen, o.Durability == Power)
	if err != nil {
		return err
	}
	if err := s.marker.write(marker{Seq: n, Boot: s.boot}, true); err != nil {
		s.marker.close()
		return err
	}
	return nil
}

func (s *Store) readCommits() (_ uint64, err error) {
	defer s.recovered("reading the commit count", &err)
	var n uint64
	err = s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(commitKey)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) (err error) {
			n, err = decodeCounter(v)
			return err
		})
	})
	if err != nil {
		return 0, refuse(s.where, "its commit count does not read back: %v", err)
	}
	return n, nil
}

// Close flushes and closes the database, then marks it closed cleanly. On a disk
// below the reserve it leaves the database as a crash would, marker included:
// closing writes the memtable out as a new table, which may not fit, and the next
// Open replays the memtable's log instead.
func (s *Store) Close() error {
	defer s.lock.release()
	s.sealer.close()
	if err := s.disk.check(); errors.Is(err, ErrDiskLow) {
		s.log.Warn("leaving the state unflushed; the next start replays its log", "dir", s.where, "err", err)
		if s.marker != nil {
			s.marker.close()
		}
		return nil
	}
	if err := s.Checkpoint(); err != nil {
		s.log.Warn("closing without a checkpoint; the next start reads the state log back", "dir", s.where, "err", err)
	}
	if err := s.db.Close(); err != nil {
		if s.marker != nil {
			s.marker.close()
		}
		return fmt.Errorf("closing state in %s: %w", s.where, err)
	}
	if s.marker == nil {
		return nil
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	err := s.marker.write(marker{Seq: s.commits, Clean: true, Boot: s.boot}, true)
	if cerr := s.marker.close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing %s in %s: %w", MarkerName, s.where, cerr)
	}
	return err
}

// NotClosedCleanly reports that a read-only store's last writer did not close it
// (it was killed, or lost power): the store reads as the next start will recover
// it, with the commits its write-ahead logs hold replayed in memory.
func (s *Store) NotClosedCleanly() bool { return s.notClosed }

// RunGC runs one pass of value-log garbage collection. Only values larger than the
// value threshold live in the value log, so most passes find nothing to do.
func (s *Store) RunGC() {
	if s.disk.check() != nil {
		return // rewriting the value log needs room first
	}
	err := s.db.RunValueLogGC(0.5)
	switch {
	case err == nil, errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrRejected),
		errors.Is(err, badger.ErrGCInMemoryMode):
	default:
		s.log.Warn("value log garbage collection failed", "dir", s.where, "err", err)
	}
}

// Size returns the bytes on disk of the LSM tree and of the value log.
func (s *Store) Size() (lsm, vlog int64) { return s.db.Size() }

// DiskLow returns an error wrapping ErrDiskLow while the disk holding the state has
// less free space than Options.MinFreeDisk; commits fail until it has room again.
func (s *Store) DiskLow() error {
	if err := s.disk.check(); err != nil {
		return fmt.Errorf("state in %s: %w", s.where, err)
	}
	return nil
}
