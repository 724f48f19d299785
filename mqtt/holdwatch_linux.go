package mqtt

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// errBrokerClosed is why a connection the broker closed while reads were held back
// was given up.
var errBrokerClosed = errors.New("the broker closed the connection while intake held back reads")

// peerClosedCheck returns a check of whether the peer closed conn, without reading
// it: poll(2) for POLLRDHUP (the peer's FIN), POLLHUP or POLLERR (a reset). An MQTT
// broker never half-closes a connection it still serves. nil if conn has no socket.
func peerClosedCheck(conn net.Conn) func() (bool, error) {
	rc := rawSocket(conn)
	if rc == nil {
		return nil
	}
	return func() (bool, error) {
		var closed bool
		var cause error
		ctlErr := rc.Control(func(fd uintptr) {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
			if n, err := unix.Poll(fds, 0); err != nil || n == 0 {
				return // EINTR or nothing: the next check asks again
			}
			closed = fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
			if !closed {
				return
			}
			if errno, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_ERROR); err == nil && errno != 0 {
				cause = syscall.Errno(errno) // a reset
			}
		})
		if ctlErr != nil {
			return false, nil // closed by edged: not a loss to report
		}
		if cause != nil {
			return closed, fmt.Errorf("%w: %w", errBrokerClosed, cause)
		}
		return closed, errBrokerClosed
	}
}
