// Package redact is how edged shows a URL that may carry credentials in a log
// line or an error: without its userinfo. configs (validation messages), mqtt
// and natsjs (connection errors and logs) all use it, so one rule decides what a
// log can leak. It imports only the standard library.
package redact

import "strings"

// URL returns raw with its userinfo (user and password) replaced by "xxxxx". It
// needs no valid URL: everything between the scheme and the last "@" goes, so a
// password with an unescaped "/" or "@" is hidden too (an "@" in a path hides
// more than it must, never less).
func URL(raw string) string {
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
