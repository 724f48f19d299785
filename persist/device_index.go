package persist

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"
	"github.com/edged/edged/watermark"
)

// A restart reads a device's saved state in two steps, so that a device with 100,000
// keys takes messages long before every key's windows are read and decoded: LoadIndex
// reads what routing needs (the window definitions, the streams' generator states and
// the names of the keys with windows, not their values), and the index's LoadKeys reads
// the valves and windows of keys as they are restored, from the snapshot the index was
// read from: reading them as the store is now would wait for every commit in flight,
// one wait per read, and only a key's own window actor writes its state, which runs
// only once the key is restored, so the snapshot holds what the store holds.

// DeviceIndex is what a device's pipeline needs before it takes messages. Unlike the
// Store, it is for one goroutine at a time, as Badger's transactions are.
type DeviceIndex struct {
	WindowDefs map[string][]byte // by window
	Streams    []StreamState     // by stream
	Keys       []KeyName         // keys with windows, by window, then key
	Uptime     int64             // the last uptime saved (Batch.PutUptime); 0 if none
	// Corrupt lists the generator states that could not be decoded and the keys that
	// could not be parsed; they are left out of the fields above.
	Corrupt []*DecodeError

	s      *Store
	device string
	txn    *badger.Txn // the snapshot; nil once closed
}

// StreamState is one stream's saved generator state, drifted to the device's last
// saved uptime (Batch.PutUptime): the state of an idle stream is saved when it goes
// idle, not as its watermark moves with time, so this is the state it had when the
// uptime was saved.
type StreamState struct {
	Stream string
	State  watermark.GeneratorState
}

// KeyName names one window actor's state.
type KeyName struct{ Window, Key string }

// LoadIndex reads a device's window definitions, generator states and the names of its
// keys. Undecodable values are reported in DeviceIndex.Corrupt and logged, as by
// LoadDevice. The index holds a snapshot of the store until Close: Badger keeps the
// versions it sees.
func (s *Store) LoadIndex(device string) (_ *DeviceIndex, err error) {
	if err := s.Checkpoint(); err != nil {
		return nil, fmt.Errorf("indexing device %q: %w", device, err)
	}
	if s.states != nil { // see Store.view
		s.states.aging.RLock()
		defer s.states.aging.RUnlock()
	}
	ix := &DeviceIndex{WindowDefs: map[string][]byte{}, s: s, device: device, txn: s.db.NewTransaction(false)}
	defer func() {
		if err != nil {
			ix.Close()
		}
	}()
	defer s.recovered(fmt.Sprintf("indexing device %q", device), &err) // before the Close above
	var streams blocks[StreamState]
	err = func(txn *badger.Txn) (err error) {
		if ix.Uptime, err = s.uptime(txn, device, &ix.Corrupt); err != nil {
			return err
		}
		err = s.scanValues(txn, device, []byte{tagDef, tagStream}, func(tag byte, r keyReader, v []byte) error {
			name := r.seg()
			if err := r.done(); err != nil {
				return err
			}
			if tag == tagDef {
				ix.WindowDefs[name] = slices.Clone(v)
				return nil
			}
			st, err := decodeGeneratorState(v)
			if err == nil {
				streams.add(StreamState{name, st.Drifted(ix.Uptime)})
			}
			return err
		}, &ix.Corrupt)
		ix.Streams = streams.slice()
		if err == nil {
			ix.Keys, err = s.scanKeyNames(txn, device, &ix.Corrupt)
		}
		return err
	}(ix.txn)
	if err != nil {
		return nil, fmt.Errorf("indexing device %q in state in %s: %w", device, s.where, err)
	}
	s.logUnreadable(device, ix.Corrupt)
	return ix, nil
}

// scanKeyNames returns the distinct keys that hold windows of a device, sorted,
// reading no value. Windows are stored by window, then key, so a key's windows are
// adjacent, and its window name is one string for thousands of keys.
func (s *Store) scanKeyNames(txn *badger.Txn, device string, corrupt *[]*DecodeError) ([]KeyName, error) {
	prefix := devicePrefix(tagWindow, device)
	var names blocks[KeyName]
	var last KeyName // the name added last
	err := s.mergeScan(txn, prefix, false, func(key, _ []byte) error {
		r := keyReader{b: key[len(prefix):]}
		w, k := r.segBytes(), r.segBytes()
		r.start()
		if r.done() != nil {
			*corrupt = append(*corrupt, &DecodeError{Key: describeKey(key), Err: fmt.Errorf("%w: malformed key", ErrCorrupt)})
			return nil
		}
		if names.n > 0 && last.Key == string(k) && last.Window == string(w) {
			return nil // another window of the same key
		}
		window := last.Window
		if string(w) != window {
			window = string(w)
		}
		last = KeyName{Window: window, Key: string(k)}
		names.add(last)
		return nil
	})
	return names.slice(), err
}

// Close lets Badger drop the versions the index's snapshot kept. Later calls do nothing.
func (ix *DeviceIndex) Close() {
	if ix.txn != nil {
		ix.txn.Discard()
		ix.txn = nil
	}
}

// LoadKeys reads the valve and windows of each of keys from the index's snapshot; see
// Store.LoadKeys.
func (ix *DeviceIndex) LoadKeys(keys []KeyName) (_ []*KeyState, corrupt []*DecodeError, err error) {
	defer ix.s.recovered(fmt.Sprintf("loading keys of device %q", ix.device), &err)
	if ix.txn == nil {
		return nil, nil, errors.New("loading keys from a closed index")
	}
	return ix.s.loadKeys(ix.txn, ix.device, keys)
}

// LoadKeys reads the valve and windows of each of keys as the store holds them now:
// nil for a key with neither stored (or only an unreadable valve). Undecodable valves
// are left out, logged and returned; malformed window keys, reported by LoadIndex, are
// skipped.
func (s *Store) LoadKeys(device string, keys []KeyName) (states []*KeyState, corrupt []*DecodeError, err error) {
	defer s.recovered(fmt.Sprintf("loading keys of device %q", device), &err)
	err = s.view(func(txn *badger.Txn) error {
		states, corrupt, err = s.loadKeys(txn, device, keys)
		return err
	})
	return states, corrupt, err
}

func (s *Store) loadKeys(txn *badger.Txn, device string, keys []KeyName) (_ []*KeyState, corrupt []*DecodeError, err error) {
	states := make([]*KeyState, len(keys))
	err = func() error {
		valves := newCursor(txn, devicePrefix(tagValve, device))
		defer valves.close()
		windows := newCursor(txn, devicePrefix(tagWindow, device))
		defer windows.close()
		var kb []byte
		for i, k := range keys {
			ks := &KeyState{Window: k.Window, Key: k.Key, Watermark: watermark.Min}
			kb = valveKey(kb[:0], device, k.Window, k.Key)
			var valve []byte
			if it := valves.seek(kb); it.Valid() && bytes.Equal(it.Item().Key(), kb) {
				var err error
				if valve, err = it.Item().ValueCopy(nil); err != nil {
					return err
				}
			}
			if s.states != nil {
				if v, del, found := s.states.get(kb); found {
					valve = v
					if del {
						valve = nil
					}
				}
			}
			hasValve := false
			if valve != nil {
				wm, inputs, err := decodeValve(valve)
				if err != nil {
					corrupt = append(corrupt, &DecodeError{Key: describeKey(kb), Err: err})
				} else {
					ks.Valve, ks.Watermark, hasValve = inputs, wm, true
				}
			}
			kb = appendSeg(appendSeg(append(kb[:0], windows.prefix...), k.Window), k.Key)
			for it := windows.seek(kb); it.ValidForPrefix(kb); it.Next() {
				r := keyReader{b: it.Item().Key()[len(kb):]}
				start := r.start()
				if r.done() != nil {
					continue
				}
				v, err := it.Item().ValueCopy(nil)
				if err != nil {
					return err
				}
				ks.Windows = append(ks.Windows, WindowState{Start: start, State: v})
			}
			if s.states != nil {
				ks.Windows = overWindows(ks.Windows, s.states.windows(kb))
			}
			if hasValve || len(ks.Windows) > 0 {
				states[i] = ks
			}
		}
		return nil
	}()
	if err != nil {
		return nil, nil, fmt.Errorf("loading keys of device %q from state in %s: %w", device, s.where, err)
	}
	s.logUnreadable(device, corrupt)
	return states, corrupt, nil
}

// cursor is an iterator over one prefix that steps to the key sought next when it is
// a few keys on, as it is when keys are read in the store's order: cheaper than a seek.
type cursor struct {
	it     *badger.Iterator
	prefix []byte
	last   []byte // the key sought last; nil before the first seek
}

func newCursor(txn *badger.Txn, prefix []byte) *cursor {
	return &cursor{it: txn.NewIterator(badger.IteratorOptions{Prefix: prefix}), prefix: prefix}
}

// seek places the iterator at the first key at or after k and returns it.
func (c *cursor) seek(k []byte) *badger.Iterator {
	if c.last != nil && bytes.Compare(k, c.last) >= 0 {
		for range 8 {
			if !c.it.Valid() || bytes.Compare(c.it.Item().Key(), k) >= 0 {
				c.last = append(c.last[:0], k...)
				return c.it
			}
			c.it.Next()
		}
	}
	c.last = append(c.last[:0], k...)
	c.it.Seek(k)
	return c.it
}

func (c *cursor) close() { c.it.Close() }

// LoadStream reads one stream's generator state as the store holds it now, drifted
// to the device's uptime (see StreamState); ok is false if none is stored or it
// does not decode (logged, as by LoadDevice).
func (s *Store) LoadStream(device, stream string) (st watermark.GeneratorState, ok bool, err error) {
	return s.loadStream(device, stream, true)
}

// LoadStreamState reads one stream's generator state as it was saved, its base on
// the device's uptime clock (Batch.PutUptime); ok as for LoadStream.
func (s *Store) LoadStreamState(device, stream string) (st watermark.GeneratorState, ok bool, err error) {
	return s.loadStream(device, stream, false)
}

func (s *Store) loadStream(device, stream string, drift bool) (st watermark.GeneratorState, ok bool, err error) {
	defer s.recovered(fmt.Sprintf("loading stream %q of device %q", stream, device), &err)
	k := streamKey(nil, device, stream)
	var corrupt []*DecodeError
	err = s.view(func(txn *badger.Txn) error {
		v, found, err := s.loggedGet(txn, k)
		if !found {
			return err
		}
		var derr error
		if st, derr = decodeGeneratorState(v); derr != nil {
			corrupt = append(corrupt, &DecodeError{Key: describeKey(k), Err: derr})
		}
		ok = derr == nil
		if !ok || !drift {
			return nil
		}
		up, err := s.uptime(txn, device, &corrupt)
		st = st.Drifted(up)
		return err
	})
	s.logUnreadable(device, corrupt)
	if err != nil {
		return st, false, fmt.Errorf("loading stream %q of device %q from state in %s: %w", stream, device, s.where, err)
	}
	return st, ok, nil
}

// uptime reads the device's uptime in txn. An unreadable one is reported in corrupt
// and read as 0: idle streams then resume from the watermarks they saved.
func (s *Store) uptime(txn *badger.Txn, device string, corrupt *[]*DecodeError) (ms int64, err error) {
	k := uptimeKey(nil, device)
	v, ok, err := s.loggedGet(txn, k)
	if !ok {
		return 0, err
	}
	u, derr := decodeCounter(v)
	if derr != nil {
		*corrupt = append(*corrupt, &DecodeError{Key: describeKey(k), Err: derr})
	}
	return int64(u), nil
}

// logUnreadable logs the values of a device that could not be decoded and were left
// out of what was loaded.
func (s *Store) logUnreadable(device string, errs []*DecodeError) {
	for _, e := range errs {
		s.log.Warn("a stored value is unreadable and was left out", "device", device, "err", e)
	}
}

// scanValues calls f with the rest of the key after the device, and the value, for
// every key of a device under tags. What f cannot decode is appended to corrupt.
// Values are read where they lie, not prefetched: they are small and stored with
// their keys.
func (s *Store) scanValues(txn *badger.Txn, device string, tags []byte, f func(tag byte, r keyReader, v []byte) error, corrupt *[]*DecodeError) error {
	for _, tag := range tags {
		prefix := devicePrefix(tag, device)
		err := s.mergeScan(txn, prefix, true, func(key, v []byte) error {
			if err := f(tag, keyReader{b: key[len(prefix):]}, v); err != nil {
				if errors.Is(err, errBadKey) {
					err = fmt.Errorf("%w: malformed key", ErrCorrupt)
				}
				*corrupt = append(*corrupt, &DecodeError{Key: describeKey(key), Err: err})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
