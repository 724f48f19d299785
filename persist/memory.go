package persist

// How limits.memory is shared with Badger. The store's part grows with the budget so
// a bigger gateway buffers more writes between flushes and keeps more table indexes,
// while at the default (256 MiB) it keeps the sizes chosen for a small one with
// BenchmarkMemory (docs/performance.md, "Measurements behind the code").
const (
	// DefaultMemory is the budget assumed when Options.Memory is 0.
	DefaultMemory = 256 << 20
	// memTableShare: each memtable is 1/128 of the budget (2 MB at the default); two
	// exist at once, each an arena of 1.6 times its size (room for one transaction past
	// it, txnShare), so about 2.5 % of the budget. An arena is one allocation on the Go
	// heap that counts whole toward the collector's goal, so on a small gateway the
	// arenas are a large part of the live heap: small memtables keep it small, at the
	// price of more flushes, each of a smaller table.
	memTableShare = 128
	// txnShare: a transaction may hold changes of up to 30 % of a memtable, twice
	// Badger's own 15 %: the bytes of 15 % of a memtable twice this size, which the
	// units actors close (actors/commit's maxUnitBytes, maxUnitChanges) and maxTxnOps
	// fit in.
	txnShare = 30
	// indexCacheShare: table indexes get 1/64 of the budget.
	indexCacheShare = 64
	minMemTable     = 2 << 20
	maxMemTable     = 64 << 20 // Badger's own default: more only delays flushes
	minIndexCache   = 4 << 20
	maxIndexCache   = 256 << 20
)

// badgerMemory is what Badger may hold for a memory budget: memtable size, block
// cache and index cache, in bytes. The block cache stays 0 at every size: tables
// are uncompressed and read through mmap, so a block cache would keep a second copy
// of what the kernel's page cache already holds, and that copy could not be reclaimed.
func badgerMemory(budget int64) (memTable, blockCache, indexCache int64) {
	if budget <= 0 {
		budget = DefaultMemory
	}
	memTable = min(max(budget/memTableShare, minMemTable), maxMemTable)
	indexCache = min(max(budget/indexCacheShare, minIndexCache), maxIndexCache)
	return memTable, 0, indexCache
}

// txnBytes is the largest transaction Badger accepts with memtables of memTable bytes.
func txnBytes(memTable int64) int64 { return txnShare * memTable / 100 }
