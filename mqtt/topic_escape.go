package mqtt

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/edged/edged/internal/escape"
)

// ErrInvalidTopic is what Publish reports for a topic the broker would refuse.
// Mosquitto answers such a PUBLISH by dropping the connection, which every
// device shares, so it is never sent: retrying it cannot succeed either.
var ErrInvalidTopic = errors.New("not a valid MQTT topic name")

// MaxTopicBytes is the longest topic MQTT can carry (a 16-bit length).
const MaxTopicBytes = 65535

// EmptyLevel is what EscapeLevel makes of the empty string: an empty level
// would merge with its neighbours ("a//b"), and "%" alone is never the escape
// of anything else.
const EmptyLevel = escape.Empty

// EscapeLevel makes a value taken from data (a key) safe as one topic level:
// it can add no level, no wildcard and nothing the broker refuses. The bytes
// of '/', '+', '#', '%', a leading '$' (topics starting with $ belong to the
// broker), NUL and other control characters, Unicode non-characters and
// invalid UTF-8 become %XX (upper-case hex), as in a URL; the empty string
// becomes EmptyLevel. Everything else is kept, so ordinary keys are unchanged.
// UnescapeLevel reverses it.
func EscapeLevel(s string) string { return escape.Token(s, keepAt) }

// keepAt returns the length of the rune at s[i] if EscapeLevel keeps it as it
// is, or 0 if it must be escaped.
func keepAt(s string, i int) int {
	switch s[i] {
	case '/', '+', '#', '%':
		return 0
	case '$':
		if i == 0 {
			return 0
		}
	}
	return allowedAt(s, i)
}

// allowedAt returns the length of the rune at s[i] if a broker accepts it in a
// topic, or 0: invalid UTF-8, NUL and the other C0 and C1 controls, DEL and
// Unicode non-characters are refused (Mosquitto checks them all).
func allowedAt(s string, i int) int {
	if c := s[i]; c < utf8.RuneSelf {
		if c < 0x20 || c == 0x7f {
			return 0
		}
		return 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && n == 1:
		return 0
	case r >= 0x80 && r <= 0x9f, r >= 0xfdd0 && r <= 0xfdef, r&0xfffe == 0xfffe:
		return 0
	}
	return n
}

// UnescapeLevel returns the value EscapeLevel made level from.
func UnescapeLevel(level string) (string, error) {
	return escape.UnescapeToken(level, "topic level")
}

// ValidTopicName reports whether the broker accepts topic in a PUBLISH: not
// empty, at most MaxTopicBytes, no wildcard, and only characters allowedAt
// accepts.
func ValidTopicName(topic string) bool {
	if topic == "" || len(topic) > MaxTopicBytes || strings.ContainsAny(topic, "+#") {
		return false
	}
	for i := 0; i < len(topic); {
		n := allowedAt(topic, i)
		if n == 0 {
			return false
		}
		i += n
	}
	return true
}
