package persist

// How limits.memory is shared with Badger. The store's part grows with the budget so
// a bigger gateway buffers more writes between flushes and keeps more table indexes,
// while at the default (256 MiB) it stays at the sizes measured for a small one
// (BenchmarkMemory).
const (
	// DefaultMemory is the budget assumed when Options.Memory is 0.
	DefaultMemory = 256 << 20
	// memTableShare: each memtable is 1/64 of the budget; two exist at once, each an
	// arena of about 1.3 times its size, so about 4 % of the budget.
	memTableShare = 64
	// indexCacheShare: table indexes get 1/64 of the budget.
	indexCacheShare = 64
	minMemTable     = 4 << 20
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
