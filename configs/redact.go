package configs

import "strings"

// redactURL replaces the userinfo of a broker URL with "xxxxx": everything
// between the scheme and the last "@", whether or not the URL parses. It is
// mqtt.RedactURL's rule; configs may not import mqtt.
func redactURL(raw string) string {
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
