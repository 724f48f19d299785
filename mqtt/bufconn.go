package mqtt

import (
	"bufio"
	"net"
	"net/url"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"golang.org/x/net/proxy"
)

// paho reads each packet's fixed header from the connection a byte at a time (the
// type, then the remaining length byte by byte), one read(2) each: at 10,000
// messages/s that was an eighth of edged's CPU. Plain TCP connections are opened
// here the way paho opens them, and read through a buffer.

// bufferedConn is a connection read through a buffer.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// readBuffer holds a few hundred typical sensor messages.
const readBuffer = 32 << 10

// openTCP opens a tcp:// or mqtt:// connection as paho does (through a proxy from
// the environment, if one is set), read through a buffer.
func openTCP(uri *url.URL, o paho.ClientOptions) (net.Conn, error) {
	dialer := o.Dialer
	if dialer == nil {
		dialer = &net.Dialer{Timeout: 30 * time.Second}
	}
	conn, err := proxy.FromEnvironmentUsing(dialer).Dial("tcp", uri.Host)
	if err != nil {
		return nil, err
	}
	return &bufferedConn{Conn: conn, r: bufio.NewReaderSize(conn, readBuffer)}, nil
}
