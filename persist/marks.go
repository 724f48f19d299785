package persist

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// HasMark reports whether message id was applied to (window, key) within the last
// DedupTTL.
func (s *Store) HasMark(device, window, key string, id uint64) (_ bool, err error) {
	defer s.recovered("reading a dedup mark", &err)
	err = s.db.View(func(txn *badger.Txn) error {
		_, err := txn.Get(markKey(nil, device, window, key, id))
		return err
	})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, badger.ErrKeyNotFound):
		return false, nil
	}
	return false, fmt.Errorf("reading dedup mark of %s/%s/%s in state in %s: %w", device, window, key, s.where, err)
}
