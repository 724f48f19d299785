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
	c := newCoalescer(ours)
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

// A failed write fails every later one and closes the connection, so that paho's
// reader sees it.
func TestCoalescerFailedWriteClosesTheConnection(t *testing.T) {
	ours, peer := net.Pipe()
	c := newCoalescer(ours)
	peer.Close()
	for {
		if _, err := c.Write([]byte("x")); err != nil {
			break // the flusher's write failed
		}
	}
	if _, err := ours.Read(make([]byte, 1)); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("reading the connection after a failed write: %v, want it closed", err)
	}
	if _, err := c.Write([]byte("x")); err == nil {
		t.Fatal("a write after a failed one succeeded")
	}
	c.Close()
}

// Closing does not wait for a peer that reads nothing beyond closeFlush.
func TestCoalescerCloseGivesUpOnAStuckPeer(t *testing.T) {
	ours, peer := net.Pipe()
	defer peer.Close()
	c := newCoalescer(ours)
	if _, err := c.Write([]byte("never read")); err != nil {
		t.Fatal(err)
	}
	c.Close() // returns once the write's deadline passed
}
