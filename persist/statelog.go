package persist

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// The state log. A commit does not write each window, valve, stream and definition
// it changes under its own key: Badger's cost is per key written (a skiplist insert,
// then a table entry when the memtable is flushed), and a busy device changes
// thousands of keys in every commit. It appends one log entry, l/<seq>, holding all
// of them, and the store keeps the entries not yet checkpointed in memory (the tail).
// A checkpoint (checkpoint.go) writes the newest value of every key the tail holds
// under that key and deletes the log entries it covers; a key changed in forty
// commits between two checkpoints is written once. Readers see the keys as stored,
// overlaid by the tail (newest wins, deletes included). Dedup marks and the outbox
// are not logged: they are written under their own keys as before.
//
// Log entry: version, then per change: kind (logPut, logDelete), uvarint key length,
// key, and for a put uvarint value length and value.
const (
	logV1     byte = 1
	logPut    byte = 1
	logDelete byte = 2
)

// logKey is l/<seq>, big-endian, so the log iterates in commit order.
func logKey(seq uint64) []byte { return binary.BigEndian.AppendUint64([]byte{tagLog}, seq) }

// appendLogOp adds one change to a log entry being built.
func appendLogOp(dst []byte, o op) []byte {
	if len(dst) == 0 {
		dst = append(dst, logV1)
	}
	if o.kind == opDelete {
		dst = append(dst, logDelete)
		dst = binary.AppendUvarint(dst, uint64(len(o.key)))
		return append(dst, o.key...)
	}
	dst = append(dst, logPut)
	dst = binary.AppendUvarint(dst, uint64(len(o.key)))
	dst = append(dst, o.key...)
	dst = binary.AppendUvarint(dst, uint64(len(o.val)))
	return append(dst, o.val...)
}

// logOpSize is what appendLogOp adds for o, at most.
func logOpSize(o op) int { return 1 + 2*binary.MaxVarintLen64 + len(o.key) + len(o.val) }

// decodeLog calls f with every change in a log entry, in order.
func decodeLog(b []byte, f func(key, val []byte, del bool)) error {
	if err := checkVersion(b, logV1); err != nil {
		return err
	}
	b = b[1:]
	read := func() ([]byte, bool) {
		n, c := binary.Uvarint(b)
		if c <= 0 || n > uint64(len(b)-c) {
			return nil, false
		}
		v := b[c : c+int(n)]
		b = b[c+int(n):]
		return v, true
	}
	for len(b) > 0 {
		kind := b[0]
		b = b[1:]
		key, ok := read()
		if !ok || len(key) == 0 {
			return fmt.Errorf("%w: truncated log entry", ErrCorrupt)
		}
		switch kind {
		case logDelete:
			f(key, nil, true)
		case logPut:
			val, ok := read()
			if !ok {
				return fmt.Errorf("%w: truncated log entry", ErrCorrupt)
			}
			f(key, val, false)
		default:
			return fmt.Errorf("%w: log change of kind %d", ErrCorrupt, kind)
		}
	}
	return nil
}

// tailVal is a key's newest change in a tail map.
type tailVal struct {
	val []byte
	del bool
}

// tailMap holds the changes of consecutive log entries, newest per key. The last map
// of the store's tail takes new commits; the ones before it are being checkpointed
// and no longer change.
type tailMap struct {
	vals   map[string]tailVal
	owners map[string][]string // window keys by their key without the start
}

func newTailMap() *tailMap {
	return &tailMap{vals: map[string]tailVal{}, owners: map[string][]string{}}
}

// set records a change. val is copied: it may point into a reused buffer.
func (m *tailMap) set(key, val []byte, del bool) {
	v := tailVal{del: del}
	if !del {
		v.val = slices.Clone(val)
		if v.val == nil {
			v.val = []byte{}
		}
	}
	if _, ok := m.vals[string(key)]; ok {
		m.vals[string(key)] = v
		return
	}
	k := string(key)
	m.vals[k] = v
	if key[0] == tagWindow && len(k) > 8 {
		o := k[:len(k)-8]
		m.owners[o] = append(m.owners[o], k)
	}
}

// tailView is the tail as a reader found it, oldest map first. Maps other than the
// last do not change; the last one is read under logMu.
type tailView struct {
	s    *Store
	maps []*tailMap
}

// view returns the current tail. The caller opens its Badger snapshot after: a map
// leaves the tail only once a checkpoint wrote it out, so anything the snapshot lacks
// is in the view.
func (s *Store) view() tailView {
	s.logMu.RLock()
	defer s.logMu.RUnlock()
	return tailView{s: s, maps: slices.Clone(s.tail)}
}

// snapshot returns the tail as it is now, for a reader that must not see later
// commits (DeviceIndex): the map taking commits is closed and a new one opened.
func (s *Store) snapshot() tailView {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if len(s.tail[len(s.tail)-1].vals) > 0 {
		s.tail = append(s.tail[:len(s.tail):len(s.tail)], newTailMap())
	}
	return tailView{s: s, maps: s.tail[:len(s.tail)-1]}
}

// get returns the tail's newest change of key; ok is false if it holds none.
func (v tailView) get(key []byte) (val tailVal, ok bool) {
	if len(v.maps) == 0 {
		return val, false
	}
	v.s.logMu.RLock()
	defer v.s.logMu.RUnlock()
	for i := len(v.maps) - 1; i >= 0; i-- {
		if val, ok = v.maps[i].vals[string(key)]; ok {
			return val, true
		}
	}
	return val, false
}

// has reports whether the tail holds a change of key: the stored value is stale then.
func (v tailView) has(key []byte) bool {
	_, ok := v.get(key)
	return ok
}

// puts returns the tail's newest values of the keys starting with prefix that it
// does not delete, sorted by key.
func (v tailView) puts(prefix []byte) (keys []string, vals [][]byte) {
	if len(v.maps) == 0 {
		return nil, nil
	}
	newest := map[string]tailVal{}
	v.s.logMu.RLock()
	for _, m := range v.maps {
		for k, val := range m.vals {
			if strings.HasPrefix(k, string(prefix)) {
				newest[k] = val
			}
		}
	}
	v.s.logMu.RUnlock()
	return sortedPuts(newest)
}

// windows is puts for the window keys of one owner (a window key without its start).
func (v tailView) windows(owner []byte) (keys []string, vals [][]byte) {
	if len(v.maps) == 0 {
		return nil, nil
	}
	newest := map[string]tailVal{}
	v.s.logMu.RLock()
	for _, m := range v.maps {
		for _, k := range m.owners[string(owner)] {
			newest[k] = m.vals[k]
		}
	}
	v.s.logMu.RUnlock()
	return sortedPuts(newest)
}

func sortedPuts(newest map[string]tailVal) (keys []string, vals [][]byte) {
	for k, v := range newest {
		if !v.del {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		vals = append(vals, newest[k].val)
	}
	return keys, vals
}

// appendTail applies the log entry a commit just wrote to the tail.
func (s *Store) appendTail(seq uint64, entry []byte) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	m := s.tail[len(s.tail)-1]
	if s.logBytes == 0 {
		s.logSince = time.Now()
	}
	// The entry was built by this process: it decodes.
	_ = decodeLog(entry, m.set)
	s.logBytes += int64(len(entry))
	s.logSeq = seq
}

// loadTail reads the log entries a checkpoint has not covered yet into the tail, at
// Open.
func (s *Store) loadTail() (err error) {
	defer s.recovered("reading the state log", &err)
	m := newTailMap()
	err = s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagLog}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			k := item.Key()
			if len(k) != 9 {
				return fmt.Errorf("%w: malformed log key %x", ErrCorrupt, k)
			}
			seq := binary.BigEndian.Uint64(k[1:])
			err := item.Value(func(v []byte) error {
				s.logBytes += int64(len(v))
				return decodeLog(v, m.set)
			})
			if err != nil {
				return fmt.Errorf("log entry %d: %w", seq, err)
			}
			if s.logFirst == 0 {
				s.logFirst = seq
			}
			s.logSeq = seq
		}
		return nil
	})
	if err != nil {
		return refuse(s.where, "its state log does not read back: %v", err)
	}
	if s.logFirst == 0 {
		s.logFirst = s.logSeq + 1
	}
	s.tail = []*tailMap{m}
	s.logSince = time.Now() // a restart starts the clock again
	return nil
}
