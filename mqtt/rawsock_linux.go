package mqtt

import (
	"io"
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A read or write of a socket through net.Conn is a system call the runtime
// accounts for: it lets its P go and, when the process was at rest, wakes the
// runtime's monitor thread, which then polls every 20 µs until the process is at
// rest again. At a few hundred readings a second every reading came from rest,
// and that monitor was a third of edged's CPU. A non-blocking socket never blocks
// a read or a write, so edged issues them as raw system calls and waits in the
// network poller as net.Conn does, deadlines included.

// rawSocket is the socket under conn, or nil where conn has none.
func rawSocket(conn net.Conn) syscall.RawConn {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// socketReader reads conn's socket with raw read(2) calls, or is conn itself where
// conn has no socket.
func socketReader(conn net.Conn) io.Reader {
	if c := newRawCall(conn, false); c != nil {
		return &rawReader{c}
	}
	return conn
}

// socketWriter writes conn's socket with raw write(2) calls, or is conn itself
// where conn has no socket.
func socketWriter(conn net.Conn) io.Writer {
	if c := newRawCall(conn, true); c != nil {
		return &rawWriter{c}
	}
	return conn
}

// newRawCall returns a direction of conn's socket, nil where conn has none.
func newRawCall(conn net.Conn, write bool) *rawCall {
	rc := rawSocket(conn)
	if rc == nil {
		return nil
	}
	c := &rawCall{conn: conn, op: "read", wait: rc.Read}
	c.attempt = c.read
	if write {
		c.op, c.wait, c.attempt = "write", rc.Write, c.writeOut
	}
	return c
}

// rawCall is one direction of a socket: one goroutine reads, or writes, at a time.
type rawCall struct {
	conn net.Conn
	op   string // "read" or "write", for errors
	// wait is the RawConn's Read or Write, attempt c.read or c.writeOut: both made
	// once, so that a call does not allocate them.
	wait    func(func(fd uintptr) bool) error
	attempt func(fd uintptr) bool
	buf     []byte
	n       int
	errno   syscall.Errno
}

// do runs attempt on b until it is done, waiting in the poller between attempts,
// and returns the bytes moved and the error, wrapped as net.Conn wraps them.
func (c *rawCall) do(b []byte) (int, error) {
	c.buf, c.n, c.errno = b, 0, 0
	err := c.wait(c.attempt)
	c.buf = nil
	switch {
	case err != nil: // a deadline, or the connection closed
		return c.n, c.opError(err)
	case c.errno != 0:
		return c.n, c.opError(c.errno)
	}
	return c.n, nil
}

// rawReader reads a socket with raw read(2) calls.
type rawReader struct{ *rawCall }

func (r *rawReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := r.do(b)
	if n == 0 && err == nil {
		return 0, io.EOF
	}
	return n, err
}

// read reads once; false asks the poller to wait until the socket is readable.
func (c *rawCall) read(fd uintptr) bool {
	for {
		n, _, errno := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&c.buf[0])), uintptr(len(c.buf)))
		switch errno {
		case 0:
			c.n = int(n)
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		default:
			c.errno = errno
		}
		return true
	}
}

// rawWriter writes a socket with raw write(2) calls.
type rawWriter struct{ *rawCall }

func (w *rawWriter) Write(b []byte) (int, error) { return w.do(b) }

// writeOut writes what is left of buf; false asks the poller to wait until the
// socket is writable.
func (c *rawCall) writeOut(fd uintptr) bool {
	for c.n < len(c.buf) {
		n, _, errno := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.buf[c.n])), uintptr(len(c.buf)-c.n))
		switch errno {
		case 0:
			c.n += int(n)
		case unix.EINTR:
		case unix.EAGAIN:
			return false
		default:
			c.errno = errno
			return true
		}
	}
	return true
}

// opError wraps err as net.Conn's Read and Write do. The RawConn's own errors come
// wrapped already, as a "raw-read" or "raw-write": the wrapping is replaced.
func (c *rawCall) opError(err error) error {
	if raw, ok := err.(*net.OpError); ok {
		err = raw.Err
	}
	return &net.OpError{Op: c.op, Net: c.conn.LocalAddr().Network(), Source: c.conn.LocalAddr(), Addr: c.conn.RemoteAddr(), Err: err}
}
