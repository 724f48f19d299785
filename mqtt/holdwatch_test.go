//go:build linux

package mqtt

import (
	"errors"
	"testing"
	"time"
)

// While the reader stays out of read(2), the socket is asked every interval whether
// the broker closed it; a broker that did is seen without a read, and the connection
// is given up with that reason; a broker that did not is left alone.
func TestAHeldBackReaderSeesTheBrokerCloseWithoutReading(t *testing.T) {
	tests := []struct {
		name  string
		reset bool
	}{
		{"the broker closes the connection", false},
		{"the broker's end is reset", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ours, peer := tcpPair(t)
			bc := newBufferedConn(ours, 10*time.Millisecond)
			defer bc.Close()
			if _, err := peer.Write([]byte("some packets")); err != nil {
				t.Fatal(err)
			}
			if _, err := bc.ReadByte(); err != nil {
				t.Fatal(err)
			}
			// The reader takes nothing more: intake holds it back.
			waitFor(t, "three checks of a live broker", func() bool { return bc.watch.checks.Load() >= 3 })
			if bc.givenUp() {
				t.Fatalf("given up while the broker is there: %v", *bc.lost.Load())
			}
			if tt.reset {
				resetByPeer(t, peer)
			} else {
				peer.Close()
			}
			waitFor(t, "the connection given up", bc.givenUp)
			_, err := bc.ReadByte()
			if !errors.Is(err, errBrokerClosed) {
				t.Fatalf("a read after the broker closed: %v, want %v", err, errBrokerClosed)
			}
			t.Logf("reads fail with: %v", err)
		})
	}
}

// waitFor polls cond with a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling a condition with a deadline
	}
}
