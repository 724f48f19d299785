package persist

import (
	"errors"
	"fmt"
	"log/slog"
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
	log   *slog.Logger
	disk  diskReserve

	// queueMu serializes every change to the outbox (commits with enqueues or
	// dequeues, DropOldest) so sequence numbers land in order and stats stay exact.
	queueMu sync.Mutex
	mu      sync.RWMutex // guards queues
	queues  map[string]*queueState
}

// Open opens (creating if needed) the state database described by o. A directory
// locked by another process fails with an error wrapping ErrLocked.
func Open(o Options) (*Store, error) {
	o = o.withDefaults()
	where := o.Dir
	if o.Durability == Memory {
		where = "memory"
	} else if o.Dir == "" {
		return nil, errors.New("opening state: no directory given")
	}
	var disk diskReserve
	if o.Durability != Memory && !o.ReadOnly {
		disk = diskReserve{dir: o.Dir, min: o.MinFreeDisk}
	}
	// Opening writes (a new memtable's log, the manifest): not on a full disk.
	if err := disk.check(); err != nil {
		return nil, fmt.Errorf("opening state in %s: %w; free some space and start again", where, err)
	}
	db, err := badger.Open(o.badgerOptions())
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, fmt.Errorf("opening state in %s: the directory is locked: %w", where, ErrLocked)
		}
		return nil, fmt.Errorf("opening state in %s: %w", where, err)
	}
	s := &Store{db: db, where: where, ttl: o.DedupTTL, log: o.Logger, disk: disk, queues: map[string]*queueState{}}
	if err := s.loadQueues(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close flushes and closes the database. On a disk below the reserve it leaves the
// database as a crash would: closing writes the memtable out as a new table, which
// may not fit, and the next Open replays the memtable's log instead.
func (s *Store) Close() error {
	if err := s.disk.check(); errors.Is(err, ErrDiskLow) {
		s.log.Warn("leaving the state unflushed; the next start replays its log", "dir", s.where, "err", err)
		return nil
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("closing state in %s: %w", s.where, err)
	}
	return nil
}

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
