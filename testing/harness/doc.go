// Package harness runs edged in-process for end-to-end tests: it writes a config to
// a temp dir, starts the daemon against a real broker and a real Badger directory,
// publishes readings and collects the result records edged publishes.
//
// Helpers take testing.TB, poll with deadlines and never sleep to wait for things.
package harness
