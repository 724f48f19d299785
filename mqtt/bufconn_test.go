package mqtt

import (
	"net"
	"strings"
	"testing"
	"time"
)

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (ours, peer *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p := <-accepted
	if p == nil {
		t.Fatal("accepting the loopback connection failed")
	}
	t.Cleanup(func() { c.Close(); p.Close() })
	return c.(*net.TCPConn), p.(*net.TCPConn)
}

// resetByPeer closes peer so that ours is reset: a broker killed with unread data.
func resetByPeer(t *testing.T, peer *net.TCPConn) {
	t.Helper()
	if err := peer.SetLinger(0); err != nil {
		t.Fatal(err)
	}
	peer.Close()
}

// pahoIgnores is the text by which paho's reader recognises a read that failed
// because the connection was closed on purpose, and then reports nothing.
const pahoIgnores = "use of closed network connection"

// A connection whose write failed is given up: its reads fail with the write's error,
// buffered data or not, never with the error of a closed connection, which paho's
// reader would take for its own disconnect.
func TestAFailedWriteFailsEveryReadWithItsCause(t *testing.T) {
	ours, peer := tcpPair(t)
	bc := newBufferedConn(ours, time.Hour)
	defer bc.Close()
	if _, err := peer.Write([]byte("two packets' worth")); err != nil {
		t.Fatal(err)
	}
	if _, err := bc.ReadByte(); err != nil { // the rest waits in the buffer
		t.Fatal(err)
	}
	resetByPeer(t, peer)
	deadline := time.Now().Add(5 * time.Second)
	for !bc.givenUp() {
		if time.Now().After(deadline) {
			t.Fatal("writes to a reset connection never failed")
		}
		bc.puback(1)
		time.Sleep(time.Millisecond) // polling a condition with a deadline
	}
	for _, read := range []func() error{
		func() error { _, err := bc.ReadByte(); return err },
		func() error { _, err := bc.Read(make([]byte, 10)); return err },
	} {
		err := read()
		if err == nil || strings.Contains(err.Error(), pahoIgnores) || !strings.Contains(err.Error(), "writing to the broker") {
			t.Fatalf("a read after the failed write: %v, want the write's error", err)
		}
	}
}
