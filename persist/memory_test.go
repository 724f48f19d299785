package persist

import "testing"

// The default budget keeps the sizes BenchmarkMemory measured for a small gateway; a
// bigger budget grows the memtables and index cache up to Badger's own defaults.
func TestBadgerIsSizedFromTheMemoryBudget(t *testing.T) {
	for _, c := range []struct {
		budget                   int64
		memTable, block, indexes int64
	}{
		{0, 2 << 20, 0, 4 << 20},
		{64 << 20, 2 << 20, 0, 4 << 20},
		{256 << 20, 2 << 20, 0, 4 << 20},
		{1 << 30, 8 << 20, 0, 16 << 20},
		{16 << 30, 64 << 20, 0, 256 << 20},
	} {
		m, b, i := badgerMemory(c.budget)
		if m != c.memTable || b != c.block || i != c.indexes {
			t.Errorf("budget %d: memtable %d, block cache %d, index cache %d; want %d, %d, %d", c.budget, m, b, i, c.memTable, c.block, c.indexes)
		}
	}
	s, err := Open(Options{Durability: Memory, Memory: 1 << 30})
	if err != nil {
		t.Fatalf("Badger refuses the options of a 1 GiB budget: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// At the default budget the memtables are 2 MB, but a transaction may still hold
// what it could with 4 MB ones (Badger's own limit would be 15 % of 2 MB, 314 KB):
// an actor's unit (up to 1,000 changes and 256 KB of values, plus keys) commits whole.
func TestAUnitAsLargeAsActorsCloseCommitsInOneTransaction(t *testing.T) {
	s := openStore(t, Options{Durability: Process})
	b := s.NewBatch()
	state := make([]byte, 300)
	for i := range 1000 {
		b.PutWindow(WindowKey{"dev", "w", "sensor-0001", int64(i) * 10_000}, state)
	}
	if err := s.Commit(b); err != nil { // one unit: Commit never splits it
		t.Fatalf("a unit of 1,000 window states of 300 bytes: %v", err)
	}
}
