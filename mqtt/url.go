package mqtt

import (
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/edged/edged/internal/redact"
)

// RedactURL returns raw with its userinfo (user and password) replaced by
// "xxxxx", for logs and errors, by redact.URL's rule: the broker URL a user of
// this package shows is hidden as every other URL edged logs.
func RedactURL(raw string) string { return redact.URL(raw) }

// parseBrokerURL checks a broker URL and adds the default port where the
// scheme has one, so errors and logs name the exact address dialled.
func parseBrokerURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the whole URL, password included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("parsing broker URL %s: %w", RedactURL(raw), err)
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
		return nil, fmt.Errorf("broker URL %s: unknown scheme %q: use tcp, mqtt, mqtts, ssl, tls, ws or wss", RedactURL(u.String()), u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("broker URL %s has no host", RedactURL(u.String()))
	}
	if port != "" && u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), port)
	}
	return u, nil
}
