package persist

import (
	"bytes"
	"cmp"
	"errors"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// mergeScan calls f with every key under prefix and its value, in key order, as
// txn holds them with the state log's changes over them. Values are read only if
// values is set (f gets nil otherwise). An error of f ends the scan.
func (s *Store) mergeScan(txn *badger.Txn, prefix []byte, values bool, f func(key, val []byte) error) error {
	var logged []logRec
	if s.states != nil && len(prefix) > 0 && loggedTag(prefix[0]) {
		logged = s.states.under(prefix, allBlocks)
	}
	emit := func(r logRec) error {
		if r.del {
			return nil
		}
		return f(r.key, r.val)
	}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		k := item.Key()
		shadowed := false // the log changed this key
		for len(logged) > 0 && bytes.Compare(logged[0].key, k) <= 0 {
			shadowed = bytes.Equal(logged[0].key, k)
			if err := emit(logged[0]); err != nil {
				return err
			}
			logged = logged[1:]
		}
		switch {
		case shadowed:
		case !values:
			if err := f(k, nil); err != nil {
				return err
			}
		default:
			if err := item.Value(func(v []byte) error { return f(k, v) }); err != nil {
				return err
			}
		}
	}
	for _, r := range logged {
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}

// loggedGet reads key as the state log and txn hold it: ok is false if neither
// holds a value.
func (s *Store) loggedGet(txn *badger.Txn, key []byte) (val []byte, ok bool, err error) {
	if s.states != nil {
		if v, del, found := s.states.get(key); found {
			return v, !del, nil
		}
	}
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	val, err = item.ValueCopy(nil)
	return val, err == nil, err
}

// overWindows applies a window actor's logged windows to those read from Badger
// (sorted by start) and returns them sorted by start.
func overWindows(ws []WindowState, logged []logEntry) []WindowState {
	if len(logged) == 0 {
		return ws
	}
	for _, e := range logged {
		r := keyReader{b: []byte(e.rest)}
		start := r.start()
		if r.done() != nil {
			continue
		}
		ws = slices.DeleteFunc(ws, func(w WindowState) bool { return w.Start == start })
		if !e.del {
			ws = append(ws, WindowState{Start: start, State: e.val})
		}
	}
	slices.SortFunc(ws, func(a, b WindowState) int { return cmp.Compare(a.Start, b.Start) })
	return ws
}

// view runs f in a read transaction that sees each logged value either in the log
// or under its key (see stateLog.aging).
func (s *Store) view(f func(txn *badger.Txn) error) error {
	if s.states != nil {
		s.states.aging.RLock()
		defer s.states.aging.RUnlock()
	}
	return s.db.View(f)
}
