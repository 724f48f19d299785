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
	rc := rawSocket(conn)
	if rc == nil {
		return conn
	}
	r := &rawReader{conn: conn, rc: rc}
	r.attempt = r.read
	return r
}

// socketWriter writes conn's socket with raw write(2) calls, or is conn itself
// where conn has no socket.
func socketWriter(conn net.Conn) io.Writer {
	rc := rawSocket(conn)
	if rc == nil {
		return conn
	}
	w := &rawWriter{conn: conn, rc: rc}
	w.attempt = w.write
	return w
}

// rawReader reads a socket with raw read(2) calls; one goroutine reads at a time.
type rawReader struct {
	conn    net.Conn
	rc      syscall.RawConn
	attempt func(fd uintptr) bool // r.read, made once so that Read does not allocate it
	buf     []byte
	n       int
	errno   syscall.Errno
}

func (r *rawReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	r.buf, r.n, r.errno = b, 0, 0
	err := r.rc.Read(r.attempt)
	r.buf = nil
	switch {
	case err != nil: // a deadline, or the connection closed
		return 0, opError("read", r.conn, err)
	case r.errno != 0:
		return 0, opError("read", r.conn, r.errno)
	case r.n == 0:
		return 0, io.EOF
	}
	return r.n, nil
}

// read reads once; false asks the poller to wait until the socket is readable.
func (r *rawReader) read(fd uintptr) bool {
	for {
		n, _, errno := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&r.buf[0])), uintptr(len(r.buf)))
		switch errno {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		}
		r.n, r.errno = int(n), errno
		return true
	}
}

// rawWriter writes a socket with raw write(2) calls; one goroutine writes at a time.
type rawWriter struct {
	conn    net.Conn
	rc      syscall.RawConn
	attempt func(fd uintptr) bool // w.write, made once so that Write does not allocate it
	buf     []byte
	n       int
	errno   syscall.Errno
}

func (w *rawWriter) Write(b []byte) (int, error) {
	w.buf, w.n, w.errno = b, 0, 0
	err := w.rc.Write(w.attempt)
	w.buf = nil
	switch {
	case err != nil: // a deadline, or the connection closed
		return w.n, opError("write", w.conn, err)
	case w.errno != 0:
		return w.n, opError("write", w.conn, w.errno)
	}
	return w.n, nil
}

// write writes what is left of buf; false asks the poller to wait until the socket
// is writable.
func (w *rawWriter) write(fd uintptr) bool {
	for w.n < len(w.buf) {
		n, _, errno := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&w.buf[w.n])), uintptr(len(w.buf)-w.n))
		switch errno {
		case 0:
			w.n += int(n)
		case unix.EINTR:
		case unix.EAGAIN:
			return false
		default:
			w.errno = errno
			return true
		}
	}
	return true
}

// opError wraps err as net.Conn's Read and Write do. The RawConn's own errors come
// wrapped already, as a "raw-read" or "raw-write": the wrapping is replaced.
func opError(op string, conn net.Conn, err error) error {
	if raw, ok := err.(*net.OpError); ok {
		err = raw.Err
	}
	return &net.OpError{Op: op, Net: conn.LocalAddr().Network(), Source: conn.LocalAddr(), Addr: conn.RemoteAddr(), Err: err}
}
