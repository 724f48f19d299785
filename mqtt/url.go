package mqtt

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// RedactURL returns raw with its userinfo (user and password) replaced by
// "xxxxx", for logs and errors. It needs no valid URL: everything between the
// scheme and the last "@" goes, so a password with an unescaped "/" or "@" is
// hidden too (an "@" in a path hides more than it must, never less).
func RedactURL(raw string) string {
	scheme, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		scheme, rest = raw[:i+3], raw[i+3:]
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return raw
	}
	return scheme + "xxxxx" + rest[at:]
}

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
