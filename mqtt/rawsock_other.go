//go:build !linux

package mqtt

import (
	"io"
	"net"
)

// socketReader is conn itself where edged does not use raw system calls on
// sockets (rawsock_linux.go).
func socketReader(conn net.Conn) io.Reader { return conn }

// socketWriter is conn itself, as socketReader.
func socketWriter(conn net.Conn) io.Writer { return conn }
