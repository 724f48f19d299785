package mqtt

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"sync/atomic"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"
	"golang.org/x/net/proxy"
)

// paho reads each packet's fixed header from the connection a byte at a time (the
// type, then the remaining length byte by byte), one read(2) each: at 10,000
// messages/s that was an eighth of edged's CPU. Plain TCP connections are opened
// here the way paho opens them, read through a buffer over a paced reader
// (bufpace.go) and written through a coalescer (bufwrite.go).

// bufferedConn is a connection read through a buffer and written through a coalescer.
type bufferedConn struct {
	net.Conn
	r     *bufio.Reader
	w     *coalescer
	watch *holdWatch // nil where the platform cannot tell a closed peer (holdwatch.go)

	lost    atomic.Pointer[error] // why the connection was given up; see fail
	closing atomic.Bool           // paho closes it: what fails from now on is expected
}

// Read and ReadByte fail with the reason the connection was given up, once it was:
// paho's reader then reports the loss (see fail).
func (c *bufferedConn) Read(p []byte) (int, error) {
	if err := c.lost.Load(); err != nil {
		return 0, *err
	}
	n, err := c.r.Read(p)
	if lost := c.lost.Load(); err != nil && lost != nil {
		err = *lost
	}
	return n, err
}

// ReadByte lets paho's packet reader take a packet's header a byte at a time from
// the buffer, not through a slice that escapes per byte.
func (c *bufferedConn) ReadByte() (byte, error) {
	if err := c.lost.Load(); err != nil {
		return 0, *err
	}
	b, err := c.r.ReadByte()
	if lost := c.lost.Load(); err != nil && lost != nil {
		err = *lost
	}
	return b, err
}

func (c *bufferedConn) Write(p []byte) (int, error) { return c.w.Write(p) }

func (c *bufferedConn) Close() error {
	c.closing.Store(true)
	if c.watch != nil {
		c.watch.stop()
	}
	return c.w.Close()
}

// fail gives the connection up: a write to it failed (the coalescer's flusher), or
// the broker closed it while intake held back its reads (the hold watch). Closing
// the connection alone does not make paho notice: its reader takes a read that fails
// on a closed connection for paho's own disconnect and reports nothing, so paho
// learnt of the loss only from a write of its own, a keepalive ping 30-40 s later if
// edged published nothing. Reads fail with err from now on instead, buffered
// messages included (the broker redelivers them: they are not acknowledged), and the
// socket is closed, which wakes a reader inside read(2). Nothing fails after paho
// closed the connection: its own close is not a loss.
func (c *bufferedConn) fail(err error) {
	if c.closing.Load() || !c.lost.CompareAndSwap(nil, &err) {
		return
	}
	if c.watch != nil {
		c.watch.stop()
	}
	_ = c.Conn.Close()
}

// givenUp reports whether the connection was given up (see fail).
func (c *bufferedConn) givenUp() bool { return c.lost.Load() != nil }

// SetWriteDeadline does nothing: paho's writes only fill the coalescer's buffer, and
// the coalescer sets the deadline of each write to the connection itself.
func (c *bufferedConn) SetWriteDeadline(time.Time) error { return nil }

// SetDeadline sets the read deadline only, for the same reason.
func (c *bufferedConn) SetDeadline(t time.Time) error { return c.Conn.SetReadDeadline(t) }

// puback acknowledges the QoS 1 message with packet id id on this connection,
// without paho: its acknowledgement crossed two unbuffered channels and goroutines
// to reach the connection, one hand-off each per message. A PUBACK is one write,
// so it cannot land inside a packet paho writes.
func (c *bufferedConn) puback(id uint16) {
	// An error means the connection is gone, with the ack: the broker redelivers.
	_, _ = c.w.Write([]byte{packets.Puback << 4, 2, byte(id >> 8), byte(id)})
}

// readBuffer holds a few hundred typical sensor messages.
const readBuffer = 32 << 10

// openTCP opens a tcp:// or mqtt:// connection as paho does (through a proxy from
// the environment, if one is set), read through a buffer and written through a
// coalescer. It keeps the connection for acknowledgements.
func (c *Client) openTCP(uri *url.URL, o paho.ClientOptions) (net.Conn, error) {
	dialer := o.Dialer
	if dialer == nil {
		dialer = &net.Dialer{Timeout: 30 * time.Second}
	}
	conn, err := proxy.FromEnvironmentUsing(dialer).Dial("tcp", uri.Host)
	if err != nil {
		return nil, err
	}
	bc := newBufferedConn(conn, holdWatchEvery)
	c.conn.Store(bc)
	return bc, nil
}

// newBufferedConn wraps conn, watching it every watchEvery while reads are held back.
func newBufferedConn(conn net.Conn, watchEvery time.Duration) *bufferedConn {
	bc := &bufferedConn{Conn: conn}
	bc.w = newCoalescer(conn, func(err error) { bc.fail(fmt.Errorf("writing to the broker: %w", err)) })
	pr := newPacedReader(socketReader(conn))
	if closed := peerClosedCheck(conn); closed != nil {
		bc.watch = newHoldWatch(watchEvery, closed, bc.fail)
		pr.watch = bc.watch
	}
	bc.r = bufio.NewReaderSize(pr, readBuffer)
	return bc
}
