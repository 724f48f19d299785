// Package golden holds a fixed replay feed and the output edged must produce
// for it, byte for byte, on every architecture: feed.jsonl (every aggregate,
// tumbling, sliding and session windows, late updates, a session merge and
// records too late for any window), config/ and expected.jsonl.
// golden_test.go replays it on the machine at hand; .ci/cross replays it with
// the edged binary built for arm64 and armv7 under qemu. The package has no
// code of its own.
package golden
