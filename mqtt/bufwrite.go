package mqtt

import (
	"io"
	"net"
	"sync"
	"time"
)

// paho writes each packet to the connection on its own, one write(2) per PUBACK: edged
// acknowledges a commit's messages together, a few hundred at a time under load, and a
// system call for each is a sizeable share of its CPU at QoS 1 (docs/performance.md,
// "Measurements behind the code"). Plain TCP connections take writes
// into a buffer instead, and one goroutine writes out whatever gathered while it was
// busy: the packets paho writes back to back go out together, and a lone packet goes
// out as soon as that goroutine runs, so nothing waits for a timer.

// writeBuffer bounds what waits to be written: paho's writes block beyond it.
const writeBuffer = 64 << 10

// closeFlush bounds how long closing waits for what waits to be written.
const closeFlush = time.Second

// coalescer is the write half of a bufferedConn.
type coalescer struct {
	conn net.Conn
	out  io.Writer // conn's socket (socketWriter)

	mu      sync.Mutex
	cond    sync.Cond // signalled whenever any of the fields below changes
	pending []byte    // written by paho, not yet to the connection
	spare   []byte    // the previous pending, to be reused
	writing bool      // the flusher writes what was pending
	closed  bool
	err     error // the connection failed a write: every later write fails too
}

// newCoalescer writes to conn; onFail learns of a write that failed, after which
// the coalescer writes nothing more.
func newCoalescer(conn net.Conn, onFail func(error)) *coalescer {
	c := &coalescer{conn: conn, out: socketWriter(conn)}
	c.cond.L = &c.mu
	go func() {
		if err := c.flush(); err != nil {
			onFail(err)
		}
	}()
	return c
}

// Write takes p to be written; it blocks only while writeBuffer bytes wait.
func (c *coalescer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.pending) >= writeBuffer && c.err == nil && !c.closed {
		c.cond.Wait()
	}
	switch {
	case c.err != nil:
		return 0, c.err
	case c.closed:
		return 0, net.ErrClosed
	}
	c.pending = append(c.pending, p...)
	c.cond.Broadcast()
	return len(p), nil
}

// flush writes out what gathers until the connection is closed and drained (nil) or
// a write fails (its error). Each write has writeTimeout to complete (closeFlush once
// closing): paho's own write deadlines bounded its writes, which now only fill the
// buffer.
func (c *coalescer) flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for len(c.pending) == 0 && !c.closed {
			c.cond.Wait()
		}
		if len(c.pending) == 0 {
			return nil // closed, every byte written
		}
		out := c.pending
		c.pending, c.writing = c.spare[:0], true
		limit := writeTimeout
		if c.closed {
			limit = closeFlush
		}
		// Under the lock, so that a Close after it shortens it.
		_ = c.conn.SetWriteDeadline(time.Now().Add(limit))
		c.mu.Unlock()
		_, err := c.out.Write(out)
		c.mu.Lock()
		c.spare, c.writing = out, false
		c.cond.Broadcast()
		if err != nil {
			c.err, c.pending = err, nil
			return err
		}
	}
}

// Close writes out what waits, for at most closeFlush, and closes the connection.
func (c *coalescer) Close() error {
	c.mu.Lock()
	c.closed = true
	c.cond.Broadcast()
	if c.writing {
		_ = c.conn.SetWriteDeadline(time.Now().Add(closeFlush))
	}
	for (len(c.pending) > 0 || c.writing) && c.err == nil {
		c.cond.Wait()
	}
	c.mu.Unlock()
	return c.conn.Close()
}
