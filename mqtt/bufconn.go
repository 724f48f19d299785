package mqtt

import (
	"bufio"
	"net"
	"net/url"
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
	r *bufio.Reader
	w *coalescer
}

func (c *bufferedConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *bufferedConn) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c *bufferedConn) Close() error                { return c.w.Close() }

// ReadByte lets paho's packet reader take a packet's header a byte at a time from
// the buffer, not through a slice that escapes per byte.
func (c *bufferedConn) ReadByte() (byte, error) { return c.r.ReadByte() }

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
	bc := &bufferedConn{Conn: conn, r: bufio.NewReaderSize(newPacedReader(conn), readBuffer), w: newCoalescer(conn)}
	c.conn.Store(bc)
	return bc, nil
}
