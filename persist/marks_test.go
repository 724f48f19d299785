package persist

import (
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

func TestAMarkIsFoundOnlyForItsMessageAndExpiresAfterTheTTL(t *testing.T) {
	const ttl = time.Hour
	s := openStore(t, Options{Durability: Memory, DedupTTL: ttl})
	b := s.NewBatch()
	b.PutMark("dev", "1m", "k", 42)
	before := time.Now()
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		device, window, key string
		id                  uint64
		want                bool
	}{
		{"dev", "1m", "k", 42, true},
		{"dev", "1m", "k", 43, false},
		{"dev", "1m", "other", 42, false},
		{"dev2", "1m", "k", 42, false},
	}
	for _, tt := range tests {
		got, err := s.HasMark(tt.device, tt.window, tt.key, tt.id)
		if err != nil || got != tt.want {
			t.Errorf("HasMark(%s, %s, %s, %d) = %v, %v; want %v", tt.device, tt.window, tt.key, tt.id, got, err, tt.want)
		}
	}
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(markKey(nil, "dev", "1m", "k", 42))
		if err != nil {
			return err
		}
		exp := time.Unix(int64(item.ExpiresAt()), 0)
		if exp.Before(before.Add(ttl).Add(-time.Second)) || exp.After(time.Now().Add(ttl).Add(time.Second)) {
			t.Errorf("mark expires at %v, want about %v", exp, before.Add(ttl))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
