package broker

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Gate is a TCP proxy in front of a broker that loses a client's packets on
// purpose: a network that connects but delivers nothing, the fault behind a
// publish that is resent after a reconnect and never confirmed. The broker's
// packets always reach the client.
type Gate struct {
	t      testing.TB
	ln     net.Listener
	target string

	held      atomic.Bool
	publishes atomic.Int64 // PUBLISH packets lost while held
	resent    atomic.Int64 // those of them flagged DUP (resent after a reconnect)
	pings     atomic.Int64 // PINGREQ packets forwarded

	mu    sync.Mutex
	conns []net.Conn
}

// StartGate listens on a free loopback port and forwards each connection to the
// broker at addr (host:port). It is closed when the test ends.
func StartGate(t testing.TB, addr string) *Gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("starting a gate to %s: %v", addr, err)
	}
	g := &Gate{t: t, ln: ln, target: addr}
	t.Cleanup(func() {
		ln.Close()
		g.Cut()
	})
	go g.accept()
	return g
}

// URL is the gate's address, "tcp://127.0.0.1:<port>".
func (g *Gate) URL() string { return "tcp://" + g.ln.Addr().String() }

// Hold loses every packet the client sends from now on, except the CONNECT that
// opens a connection: the client connects and believes its packets go out.
func (g *Gate) Hold() { g.held.Store(true) }

// Open forwards everything again.
func (g *Gate) Open() { g.held.Store(false) }

// Cut closes every connection through the gate; clients reconnect through it.
func (g *Gate) Cut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.conns {
		c.Close()
	}
	g.conns = nil
}

// Pings returns how many PINGREQ packets clients sent through the gate.
func (g *Gate) Pings() int64 { return g.pings.Load() }

// Lost returns how many PUBLISH packets the gate lost while held, and how many of
// them were flagged DUP.
func (g *Gate) Lost() (publishes, resent int64) { return g.publishes.Load(), g.resent.Load() }

func (g *Gate) accept() {
	for {
		client, err := g.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", g.target)
		if err != nil {
			client.Close()
			continue
		}
		g.mu.Lock()
		g.conns = append(g.conns, client, server)
		g.mu.Unlock()
		go func() {
			_, _ = io.Copy(client, server)
			client.Close()
			server.Close()
		}()
		go g.forward(client, server)
	}
}

// forward copies the client's packets to the server one by one, losing them while
// the gate is held; the first (CONNECT) always passes.
func (g *Gate) forward(client, server net.Conn) {
	defer client.Close()
	defer server.Close()
	r := bufio.NewReader(client)
	for first := true; ; first = false {
		p, err := readPacket(r)
		if err != nil {
			return
		}
		if !first && g.held.Load() {
			if p[0]>>4 == 3 { // PUBLISH
				g.publishes.Add(1)
				if p[0]&0x08 != 0 {
					g.resent.Add(1)
				}
			}
			continue
		}
		if p[0]>>4 == 12 { // PINGREQ
			g.pings.Add(1)
		}
		if _, err := server.Write(p); err != nil {
			return
		}
	}
}

// readPacket reads one MQTT control packet: a type byte, the remaining length
// (a varint of up to 4 bytes) and that many bytes.
func readPacket(r *bufio.Reader) ([]byte, error) {
	h, err := r.ReadByte()
	if err != nil {
		return nil, err
	}
	p := []byte{h}
	n, shift := 0, 0
	for i := 0; ; i++ {
		if i == 4 {
			return nil, errors.New("malformed remaining length")
		}
		b, err := r.ReadByte()
		if err != nil {
			return nil, err
		}
		p = append(p, b)
		n |= int(b&0x7f) << shift
		shift += 7
		if b&0x80 == 0 {
			break
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("reading a packet of %d bytes: %w", n, err)
	}
	return append(p, body...), nil
}
