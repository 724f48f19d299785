// Package persist is edged's state store: one Badger database per daemon holding
// window definitions, window accumulators, valve and watermark-generator state, dedup
// marks and the upstream outbox.
//
// Everything a device owns lives under keys that start with the device name, so a
// device is listed, loaded and deleted by prefix. Actors collect their changes in a
// Batch; the committer writes one Batch per flush in one transaction, split only at
// unit boundaries (past maxTxnOps changes, or when Badger says it is too big), so each
// actor's flush stays atomic. The window states, valves, stream states and uptimes
// of a transaction go into it as one compressed block of the state log rather than
// under their own keys, and the Store keeps their latest values in memory until
// later blocks or aging make the block unneeded (statelog.go): on a steady feed each
// reading rewrites its window's state and its stream's, and this is what keeps the
// bytes written to flash per reading near its payload's size.
//
// Open refuses a directory Badger would silently open as empty or older (a lost or
// truncated MANIFEST, a damaged table or write-ahead log, a store holding fewer
// commits than the edged-state marker beside it recorded), before Badger changes
// anything in it; see check.go, marker.go and wal.go. A read-only Open (edged inspect)
// changes nothing either, also in a store its last writer did not close: it reads the
// store as the next start will recover it, with the write-ahead logs replayed in memory.
//
// persist may import watermark/, badger, klauspost/compress (zstd, which Badger
// links already) and the standard library. No Badger type
// leaves this package: callers see bytes, watermark types and the types declared here.
package persist
