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
	db, err := badger.Open(o.badgerOptions())
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, fmt.Errorf("opening state in %s: the directory is locked: %w", where, ErrLocked)
		}
		return nil, fmt.Errorf("opening state in %s: %w", where, err)
	}
	s := &Store{db: db, where: where, ttl: o.DedupTTL, log: o.Logger, queues: map[string]*queueState{}}
	if err := s.loadQueues(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close flushes and closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("closing state in %s: %w", s.where, err)
	}
	return nil
}

// RunGC runs one pass of value-log garbage collection. Only values larger than the
// value threshold live in the value log, so most passes find nothing to do.
func (s *Store) RunGC() {
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
