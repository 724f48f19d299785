// Package windows is edged's event-time window core: assigners (tumbling,
// sliding, session), incremental and mergeable aggregates with versioned
// binary encodings, and the keyed window operator that fires (accumulating or
// discarding, with optional early firings), re-fires late updates, retracts
// session windows a merge absorbed, keeps the revisions of session starts a
// late reading could revive, purges and routes late records, following
// Flink's WindowOperator.
//
// The package is pure and deterministic: no goroutines, no logging, no clock.
// Time arrives as event timestamps and watermarks (int64 milliseconds), and
// everything the operator produces leaves through an Output value the caller
// persists and then publishes. It must not import actors, MQTT, Badger or
// anything that does I/O; it may import watermark/, the standard library and
// the sketch libraries (DataDog/sketches-go, axiomhq/hyperloglog).
package windows
