package mqtt

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// The raw reader and writer move what net.Conn would, a write larger than the
// socket's buffers included (it waits in the poller until the peer reads), and end
// with io.EOF when the peer closes.
func TestRawSocketsCarryWhatNetConnCarries(t *testing.T) {
	client, server := tcpPair(t)
	r, w := socketReader(client), socketWriter(server)
	if _, ok := r.(*rawReader); !ok {
		t.Fatalf("socketReader of a TCP connection is %T, want *rawReader", r)
	}
	if _, ok := w.(*rawWriter); !ok {
		t.Fatalf("socketWriter of a TCP connection is %T, want *rawWriter", w)
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	wrote := make(chan error, 1)
	go func() {
		n, err := w.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		if err == nil {
			err = server.Close()
		}
		wrote <- err
	}()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("writing: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, want the %d written", len(got), len(want))
	}
}

// Deadlines and a closed connection fail a raw read or write as they fail
// net.Conn's: a *net.OpError wrapping os.ErrDeadlineExceeded or net.ErrClosed.
func TestRawSocketsFailAsNetConnFails(t *testing.T) {
	client, server := tcpPair(t)
	r, w := socketReader(client), socketWriter(server)
	buf := make([]byte, 16)

	client.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	_, err := r.Read(buf)
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "read" || !errors.Is(err, os.ErrDeadlineExceeded) || errors.As(op.Err, new(*net.OpError)) {
		t.Errorf("read past its deadline: %v, want one read OpError wrapping os.ErrDeadlineExceeded", err)
	}

	big := make([]byte, 64<<20) // more than the socket buffers hold: the peer does not read
	server.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
	n, err := w.Write(big)
	if !errors.As(err, &op) || op.Op != "write" || !errors.Is(err, os.ErrDeadlineExceeded) || n == 0 || n >= len(big) {
		t.Errorf("write past its deadline: %d bytes, %v; want part written and a write OpError wrapping os.ErrDeadlineExceeded", n, err)
	}

	client.Close()
	if _, err := r.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read of a closed connection: %v, want net.ErrClosed", err)
	}
	server.Close()
	if _, err := w.Write(buf); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write to a closed connection: %v, want net.ErrClosed", err)
	}
}

// A read that the kernel fails (a reset) returns no bytes and the error, wrapped.
func TestARawReadOfAResetConnectionFailsWithNoBytes(t *testing.T) {
	client, server := tcpPair(t)
	r := socketReader(client)
	resetByPeer(t, server)
	n, err := r.Read(make([]byte, 16))
	var op *net.OpError
	if n != 0 || !errors.As(err, &op) || op.Op != "read" || !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("read of a reset connection: %d bytes, %v; want 0 and a read OpError wrapping ECONNRESET", n, err)
	}
}
