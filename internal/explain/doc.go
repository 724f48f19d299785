// Package explain says why a window of one key has or has not fired: which of
// the streams that feed the key hold its watermark back, what each open window
// waits for, when a fired one is purged and, on a running daemon, when a pending
// one fires at the current rate or once its streams fall silent.
//
// `edged explain` (a stopped data dir) and the daemon's /explain know different
// things (a saved state, or a window actor's own and the live stream statistics);
// each fills an Input, and Build does the reasoning once, into an Explanation that
// the first writes as text (Write) and the second serves as JSON.
//
// It is pure: it imports watermark and windows only, does no I/O and reads no
// clock (a running daemon's processing time comes in Input.Now).
package explain
