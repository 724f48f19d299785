package main

import (
	"net"
	"os"
)

// sdNotify tells systemd about the daemon's state (READY=1, STOPPING=1) when it
// runs as a Type=notify unit, so `systemctl start` returns only once edged is
// connected, restored and consuming, and dependants start after that. Outside systemd
// NOTIFY_SOCKET is unset and this does nothing.
func sdNotify(state string) error {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return nil
	}
	if path[0] == '@' { // abstract socket namespace
		path = "\x00" + path[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write([]byte(state))
	return err
}
