package persist

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// A memtable flush keeps only a key's newest version that every reader sees (the
// Badger patch "a flush writes a key once"): a transaction that started before the
// rewrites must still read the version it started with, after flushes and after a
// compaction, and a new one the newest.
func TestAFlushKeepsTheVersionAnOpenReadSees(t *testing.T) {
	s := openStore(t, Options{memTableSize: 1 << 20})
	key := []byte("w/rewritten")
	set := func(k []byte, v string) {
		t.Helper()
		if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(k, []byte(v)) }); err != nil {
			t.Fatal(err)
		}
	}
	get := func(txn *badger.Txn) string {
		t.Helper()
		item, err := txn.Get(key)
		if err != nil {
			t.Fatal(err)
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}

	set(key, "0")
	old := s.db.NewTransaction(false)
	defer old.Discard()
	filler := make([]byte, 4<<10)
	last := 0
	for len(s.db.Tables()) < 4 {
		if last == 20_000 {
			t.Fatalf("no 4 tables after %d rewrites: %d", last, len(s.db.Tables()))
		}
		last++
		set(key, strconv.Itoa(last))
		set(fmt.Appendf(nil, "f/%06d", last), string(filler))
	}
	if got := get(old); got != "0" {
		t.Errorf("a read that started before the rewrites sees %q, want %q", got, "0")
	}
	if err := s.db.Flatten(1); err != nil {
		t.Fatal(err)
	}
	if got := get(old); got != "0" {
		t.Errorf("after a compaction, a read that started before the rewrites sees %q, want %q", got, "0")
	}
	old.Discard()
	want := strconv.Itoa(last)
	if err := s.db.View(func(txn *badger.Txn) error {
		if got := get(txn); got != want {
			t.Errorf("a new read sees %q, want %q", got, want)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, Options{memTableSize: 1 << 20})
	if err := s.db.View(func(txn *badger.Txn) error {
		if got := get(txn); got != want {
			t.Errorf("after a reopen, a read sees %q, want %q", got, want)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
