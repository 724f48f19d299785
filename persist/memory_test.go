package persist

import "testing"

// The default budget keeps the sizes BenchmarkMemory measured for a small gateway; a
// bigger budget grows the memtables and index cache up to Badger's own defaults.
func TestBadgerIsSizedFromTheMemoryBudget(t *testing.T) {
	for _, c := range []struct {
		budget                   int64
		memTable, block, indexes int64
	}{
		{0, 4 << 20, 0, 4 << 20},
		{64 << 20, 4 << 20, 0, 4 << 20},
		{256 << 20, 4 << 20, 0, 4 << 20},
		{1 << 30, 16 << 20, 0, 16 << 20},
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
