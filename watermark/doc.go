// Package watermark turns the event times of a stream into watermarks and
// combines the watermarks of several streams, with Flink's semantics in
// integer milliseconds.
//
// A Generator belongs to one concrete stream (one sensor topic): it tracks
// the highest event time seen, derives the watermark from it (bounded
// out-of-orderness, monotonous, or punctuation carried in the stream),
// detects idleness on processing time, and rejects records too far in the
// future. A Valve belongs to one window actor and combines the statuses of
// the streams that fed it: the minimum over the active, aligned inputs, as
// Flink's StatusWatermarkValve does.
//
// Everything here is pure and deterministic: processing time arrives as an
// argument, nothing starts a goroutine, logs, or reads the clock, so every
// rule can be tested exactly. The package imports only the standard library;
// it must not import windows/, persist/, mqtt/, actors/ or any I/O package.
package watermark
