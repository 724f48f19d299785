package persist

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/edged/edged/watermark"
)

// DeviceState is everything persisted for one device, as a restart needs it.
type DeviceState struct {
	Streams    map[string]watermark.GeneratorState // by stream, drifted to Uptime (see StreamState)
	Uptime     int64                               // the last uptime saved (Batch.PutUptime); 0 if none
	Keys       []KeyState                          // by window, then key
	WindowDefs map[string][]byte                   // by window
	// Corrupt lists the values that could not be decoded; they are left out of the
	// fields above so the caller can quarantine them and go on with the rest.
	Corrupt []*DecodeError
}

// KeyState is one window actor's state: its valve and open windows.
type KeyState struct {
	Window, Key string
	Valve       []watermark.ValveInput // nil if none was stored
	Watermark   int64                  // the operator's watermark; watermark.Min if none was stored
	Windows     []WindowState          // by start
}

// WindowState is one window's opaque state (decoded by windows/).
type WindowState struct {
	Start int64
	State []byte
}

// LoadDevice reads a device's window definitions, generator states, valves and
// window states in a deterministic order (by window, key, start). Undecodable values
// are reported in DeviceState.Corrupt and logged, not returned as an error: one bad
// value must not keep the rest of a device from starting.
func (s *Store) LoadDevice(device string) (_ *DeviceState, err error) {
	defer s.recovered(fmt.Sprintf("loading device %q", device), &err)
	ds := &DeviceState{Streams: map[string]watermark.GeneratorState{}, WindowDefs: map[string][]byte{}}
	keys := map[[2]string]*KeyState{}
	keyState := func(window, key string) *KeyState {
		k := keys[[2]string{window, key}]
		if k == nil {
			k = &KeyState{Window: window, Key: key, Watermark: watermark.Min}
			keys[[2]string{window, key}] = k
		}
		return k
	}
	err = s.view(func(txn *badger.Txn) (err error) {
		if ds.Uptime, err = s.uptime(txn, device, &ds.Corrupt); err != nil {
			return err
		}
		return s.scanValues(txn, device, []byte{tagDef, tagStream, tagValve, tagWindow}, func(tag byte, r keyReader, v []byte) error {
			switch tag {
			case tagDef:
				window := r.seg()
				if err := r.done(); err != nil {
					return err
				}
				ds.WindowDefs[window] = slices.Clone(v)
			case tagStream:
				stream := r.seg()
				if err := r.done(); err != nil {
					return err
				}
				st, err := decodeGeneratorState(v)
				if err != nil {
					return err
				}
				ds.Streams[stream] = st.Drifted(ds.Uptime)
			case tagValve:
				window, key := r.seg(), r.seg()
				if err := r.done(); err != nil {
					return err
				}
				wm, inputs, err := decodeValve(v)
				if err != nil {
					return err
				}
				ks := keyState(window, key)
				ks.Valve, ks.Watermark = inputs, wm
			case tagWindow:
				window, key, start := r.seg(), r.seg(), r.start()
				if err := r.done(); err != nil {
					return err
				}
				k := keyState(window, key)
				k.Windows = append(k.Windows, WindowState{Start: start, State: slices.Clone(v)})
			}
			return nil
		}, &ds.Corrupt)
	})
	if err != nil {
		return nil, fmt.Errorf("loading device %q from state in %s: %w", device, s.where, err)
	}
	for _, k := range keys {
		ds.Keys = append(ds.Keys, *k)
	}
	slices.SortFunc(ds.Keys, func(a, b KeyState) int {
		if c := strings.Compare(a.Window, b.Window); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	s.logUnreadable(device, ds.Corrupt)
	return ds, nil
}

// Devices lists every device with state, sorted.
func (s *Store) Devices() (_ []string, err error) {
	defer s.recovered("listing devices", &err)
	if err := s.Checkpoint(); err != nil {
		return nil, fmt.Errorf("listing devices: %w", err)
	}
	seen := map[string]bool{}
	if s.states != nil { // a read-only store's log
		for _, r := range s.states.all() {
			rd := keyReader{b: r.key[1:]}
			if device := rd.seg(); rd.err == nil && !r.del {
				seen[device] = true
			}
		}
	}
	err = s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for _, tag := range deviceTags {
			for it.Seek([]byte{tag}); it.ValidForPrefix([]byte{tag}); {
				r := keyReader{b: it.Item().Key()[1:]}
				device := r.seg()
				if r.err != nil {
					return errors.New(describeKey(it.Item().Key()))
				}
				seen[device] = true
				// Skip the device's other keys: its prefix ends in segEsc segEnd, so
				// replacing segEnd by segEnd+1 is the first key after all of them.
				next := devicePrefix(tag, device)
				next[len(next)-1]++
				it.Seek(next)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing devices in state in %s: %w", s.where, err)
	}
	devices := make([]string, 0, len(seen))
	for d := range seen {
		devices = append(devices, d)
	}
	slices.Sort(devices)
	return devices, nil
}

// DeleteDevice removes everything stored under a device (not its outbox queues,
// which are named by the caller, nor its dedup marks in segments, which expire). No actor of the device may commit meanwhile.
func (s *Store) DeleteDevice(device string) (err error) {
	defer s.recovered(fmt.Sprintf("deleting device %q", device), &err)
	if err := s.Checkpoint(); err != nil {
		return fmt.Errorf("deleting device %q: %w", device, err)
	}
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	err = s.db.View(func(txn *badger.Txn) error {
		for _, tag := range deviceTags {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: devicePrefix(tag, device)})
			for it.Rewind(); it.Valid(); it.Next() {
				if err := wb.Delete(it.Item().KeyCopy(nil)); err != nil {
					it.Close()
					return err
				}
			}
			it.Close()
		}
		return nil
	})
	if err == nil {
		err = wb.Flush()
	}
	if err != nil {
		return fmt.Errorf("deleting device %q from state in %s: %w", device, s.where, err)
	}
	return nil
}
