package mqtt

import (
	"fmt"
	"net"
	"net/url"
)

// parseBrokerURL checks a broker URL and adds the default port where the
// scheme has one, so errors and logs name the exact address dialled.
func parseBrokerURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parsing broker URL: %w", err)
	}
	var port string
	switch u.Scheme {
	case "tcp", "mqtt":
		port = "1883"
	case "mqtts", "ssl", "tls":
		port = "8883"
	case "ws", "wss":
		// The websocket dialer knows its default ports.
	default:
		return nil, fmt.Errorf("broker URL %s: unknown scheme %q: use tcp, mqtt, mqtts, ssl, tls, ws or wss", u.Redacted(), u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("broker URL %s has no host", u.Redacted())
	}
	if port != "" && u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), port)
	}
	return u, nil
}
