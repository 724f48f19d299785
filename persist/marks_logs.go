package persist

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// markTxn is what a transaction being built carries for its dedup marks.
type markTxn struct {
	fps []uint64 // fingerprints of its marks (opMark); logMarks logs them if any
	seg uint64   // the segment logMarks wrote them under
}

// markLogs holds in memory the fingerprints of the mark logs on disk that are not
// sealed yet, a sorted slice each: a lookup reads them here rather than stepping
// through up to hundreds of logs in Badger (a commit every 20 ms makes 500 in a
// segment) for each redelivered message, and the sealer learns from them which
// segments to seal. They hold 8 bytes a mark for a segment or two: 160 KB at
// 1,000 marks a second. Open loads the logs an earlier run left.
type markLogs struct {
	mu   sync.RWMutex
	segs map[uint64][]markLog
}

type markLog struct {
	commit uint64
	fps    []uint64
}

// add records a committed log.
func (l *markLogs) add(seg, commit uint64, fps []uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.segs == nil {
		l.segs = map[uint64][]markLog{}
	}
	l.segs[seg] = append(l.segs[seg], markLog{commit, fps})
}

// has reports whether a log of a segment live says yes to holds fp.
func (l *markLogs) has(fp uint64, live func(seg uint64) bool) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	for seg, logs := range l.segs {
		if !live(seg) {
			continue
		}
		for _, lg := range logs {
			if _, ok := slices.BinarySearch(lg.fps, fp); ok {
				return true
			}
		}
	}
	return false
}

// before lists the segments before cur that have logs, oldest first.
func (l *markLogs) before(cur uint64) []uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var segs []uint64
	for seg := range l.segs {
		if seg < cur {
			segs = append(segs, seg)
		}
	}
	slices.Sort(segs)
	return segs
}

// drop forgets the logs a seal deleted (keys from markLogKey); a log of the
// segment that came after the seal read it stays.
func (l *markLogs) drop(seg uint64, keys [][]byte) {
	sealed := make(map[uint64]bool, len(keys))
	for _, k := range keys {
		sealed[binary.BigEndian.Uint64(k[9:])] = true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	logs := slices.DeleteFunc(l.segs[seg], func(lg markLog) bool { return sealed[lg.commit] })
	if len(logs) == 0 {
		delete(l.segs, seg)
		return
	}
	l.segs[seg] = logs
}

// load reads the logs on disk into l.
func (l *markLogs) load(db *badger.DB) error {
	return db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagMarkLog}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) != 17 {
				continue
			}
			seg, commit := binary.BigEndian.Uint64(k[1:]), binary.BigEndian.Uint64(k[9:])
			err := it.Item().Value(func(v []byte) error {
				fps := appendFingerprints(nil, v)
				slices.Sort(fps)
				l.add(seg, commit, fps)
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}
