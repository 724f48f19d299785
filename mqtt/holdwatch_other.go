//go:build !linux

package mqtt

import "net"

// peerClosedCheck is nil where edged has no way to ask a socket whether its peer
// closed it without reading it: a broker that goes while reads are held back is seen
// once intake reads again, through a failed acknowledgement, or by the keepalive.
func peerClosedCheck(net.Conn) func() (bool, error) { return nil }
