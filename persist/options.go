package persist

import (
	"log/slog"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// DefaultDedupTTL is how long a dedup mark lives when Options.DedupTTL is zero. A
// mark only has to outlive the broker's redelivery of messages that were applied
// but not yet acknowledged, which happens when edged reconnects; a day covers a
// gateway that stays down for hours.
const DefaultDedupTTL = 24 * time.Hour

// Options configure Open.
type Options struct {
	Dir        string // ignored with Memory durability
	Durability Durability
	DedupTTL   time.Duration // lifetime of dedup marks; 0 = DefaultDedupTTL
	Logger     *slog.Logger  // receives Badger's warnings and errors; nil = discard
	// ReadOnly opens an existing store without changing a byte of it (edged
	// inspect); a directory without edged state is refused, not created.
	ReadOnly bool
	// MinFreeDisk is the free space (bytes) below which the Store refuses to open
	// or commit, so Badger never writes to a full disk; 0 = no check.
	MinFreeDisk uint64
	// Memory is edged's whole memory budget (limits.memory), in bytes; Badger's
	// memtables and caches are sized from it (badgerMemory). 0 = DefaultMemory.
	Memory int64

	// memTableSize overrides the size from Memory so tests can make Badger's
	// transaction limit small enough to force split commits.
	memTableSize int64
	// clock is the wall clock the dedup marks' segments and the state log's aging
	// follow; nil = time.Now.
	clock func() time.Time
}

func (o Options) withDefaults() Options {
	if o.DedupTTL <= 0 {
		o.DedupTTL = DefaultDedupTTL
	}
	if o.clock == nil {
		o.clock = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.memTableSize == 0 {
		o.memTableSize, _, _ = badgerMemory(o.Memory)
	}
	return o
}

// maxValueThreshold is the largest value Badger keeps in its write-ahead log; larger
// ones go to the value log.
const maxValueThreshold = 1 << 20

// badgerOptions tunes Badger for a gateway with little RAM: the heap a store costs,
// which BenchmarkMemory measures, is a fraction of what Badger's defaults take
// (docs/performance.md, "Measurements behind the code"). What buys it:
//   - two memtables of 1/128 of the budget (2 MB at the default) instead of five of
//     64 MB: their arenas are most of the heap. A transaction may hold 30 % of one
//     (txnBytes; Commit splits at unit boundaries). Level 0 is compacted at 4 tables
//     and stalls writes at 16: the bytes 2 and 8 tables of 4 MB hold, so smaller
//     memtables do not make a burst of writes wait for compactions sooner;
//   - no block cache: blocks are uncompressed and read through mmap, so the page
//     cache does the caching and the kernel can reclaim it;
//   - an index cache of 1/64 of the budget (4 MB at the default), so table indexes
//     stay bounded as the store grows;
//   - compression off: gateway CPUs are slow and window states are small binary;
//   - a 16 MB value log file (only values over the threshold go there; no value may
//     be bigger), two compactors, metrics and conflict detection off (the Store
//     serializes its own read-modify-writes);
//   - checksums: every table is checked whole before Badger opens the store
//     (checkBeforeOpen) and when Badger opens a table it built; values in the value
//     log are checked when read. Not on every block read: with no block cache that
//     re-checks the same blocks at each lookup, which slows the drain of a large
//     outbox too much on a loaded machine;
//   - Badger's directory lock is edged's own (lockDir);
//   - a read-only open of a store its last writer did not close reads the
//     write-ahead logs as a restart would replay them, in memory, and changes
//     no file (WithReadOnlyKeepsLogs, a patch in third_party/badger).
func (o Options) badgerOptions() badger.Options {
	dir := o.Dir
	if o.Durability == Memory {
		dir = ""
	}
	// Badger refuses a value threshold above its max batch size (txnBytes).
	threshold := min(maxValueThreshold, txnBytes(o.memTableSize)/2)
	_, blockCache, indexCache := badgerMemory(o.Memory)
	return badger.DefaultOptions(dir).
		WithInMemory(o.Durability == Memory).
		WithReadOnly(o.ReadOnly && o.Durability != Memory).
		WithReadOnlyKeepsLogs(true). // checkBeforeOpen vouches for the logs
		WithSyncWrites(o.Durability == Power).
		WithLogger(badgerLogger{o.Logger}).
		WithMemTableSize(o.memTableSize).
		WithMaxBatchSize(txnBytes(o.memTableSize)).
		WithNumMemtables(2).
		WithNumLevelZeroTables(4).
		WithNumLevelZeroTablesStall(16).
		WithBaseTableSize(2 << 20).
		WithBaseLevelSize(8 << 20).
		WithValueThreshold(threshold).
		WithValueLogFileSize(16 << 20).
		WithCompression(options.None).
		WithBlockCacheSize(blockCache).
		WithIndexCacheSize(indexCache).
		WithNumCompactors(2).
		WithNumGoroutines(2).
		WithMetricsEnabled(false).
		WithDetectConflicts(false).
		WithChecksumVerificationMode(options.OnTableRead).
		WithVerifyValueChecksum(true).
		WithBypassLockGuard(o.Durability != Memory)
}
