package persist

import (
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// DeleteWindowState removes everything stored for one window definition of a
// device (its windows, valves, old-layout dedup marks and definition) and returns
// how many keys went. Its marks in segments (marks_segments.go) are not found by
// window and stay until they expire: meanwhile they skip only a redelivery of a
// message applied to the deleted definition, which its successor, starting
// empty, would otherwise count. The definition goes last, in a write of its own: a crash part way
// leaves it in place, so a restart still sees a definition that does not match the
// config and the caller deletes the rest again. No actor of the device may commit
// meanwhile.
func (s *Store) DeleteWindowState(device, window string) (n int, err error) {
	defer s.recovered(fmt.Sprintf("deleting window %q of device %q", window, device), &err)
	if err := s.Checkpoint(); err != nil {
		return 0, fmt.Errorf("deleting window %q of device %q: %w", window, device, err)
	}
	var prefixes [][]byte
	for _, tag := range []byte{tagWindow, tagValve, tagMark} {
		prefixes = append(prefixes, appendSeg(devicePrefix(tag, device), window))
	}
	n, err = s.deletePrefixes(prefixes)
	if err == nil {
		var m int
		m, err = s.deletePrefixes([][]byte{defKey(nil, device, window)})
		n += m
	}
	if err != nil {
		return n, fmt.Errorf("deleting window %q of device %q from state in %s: %w", window, device, s.where, err)
	}
	return n, nil
}

func (s *Store) deletePrefixes(prefixes [][]byte) (n int, err error) {
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	err = s.db.View(func(txn *badger.Txn) error {
		for _, p := range prefixes {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: p})
			for it.Rewind(); it.Valid(); it.Next() {
				if err := wb.Delete(it.Item().KeyCopy(nil)); err != nil {
					it.Close()
					return err
				}
				n++
			}
			it.Close()
		}
		return nil
	})
	if err == nil {
		err = wb.Flush()
	}
	return n, err
}
