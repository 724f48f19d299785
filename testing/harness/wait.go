package harness

import (
	"testing"
	"time"
)

// Eventually polls cond until it holds or timeout passes, then fails the test with
// what.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond) // a poll interval, not a wait for an event
	}
}
