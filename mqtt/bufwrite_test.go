package mqtt

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
)

// Writes arrive whole and in order, and closing writes out what still waits first.
func TestCoalescerWritesInOrderAndFlushesOnClose(t *testing.T) {
	ours, peer := net.Pipe()
	c := newCoalescer(ours, func(err error) { t.Errorf("a write failed: %v", err) })
	var want bytes.Buffer
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(peer)
		got <- b
	}()
	for i := range 1000 {
		p := bytes.Repeat([]byte{byte(i)}, 1+i%100)
		want.Write(p)
		if n, err := c.Write(p); n != len(p) || err != nil {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, want.Bytes()) {
		t.Fatalf("the peer read %d bytes, want the %d written in order", len(b), want.Len())
	}
	if _, err := c.Write([]byte{1}); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a write after close: %v, want net.ErrClosed", err)
	}
}

// A failed write fails every later one and is reported, once, so that the connection
// is given up (bufferedConn.fail).
func TestCoalescerReportsAFailedWriteAndFailsEveryLaterOne(t *testing.T) {
	ours, peer := net.Pipe()
	failed := make(chan error, 2)
	c := newCoalescer(ours, func(err error) { failed <- err })
	peer.Close()
	for {
		if _, err := c.Write([]byte("x")); err != nil {
			break // the flusher's write failed
		}
	}
	if err := <-failed; !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("reported %v, want the write's error", err)
	}
	if _, err := c.Write([]byte("x")); err == nil {
		t.Fatal("a write after a failed one succeeded")
	}
	c.Close()
	if len(failed) > 0 {
		t.Fatalf("reported again: %v", <-failed)
	}
}

// Closing does not wait for a peer that reads nothing beyond closeFlush.
func TestCoalescerCloseGivesUpOnAStuckPeer(t *testing.T) {
	ours, peer := net.Pipe()
	defer peer.Close()
	c := newCoalescer(ours, func(error) {}) // the write times out
	if _, err := c.Write([]byte("never read")); err != nil {
		t.Fatal(err)
	}
	c.Close() // returns once the write's deadline passed
}
