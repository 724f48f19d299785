package natsjs

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/edged/edged/internal/escape"
)

// EmptyToken is what EscapeToken makes of the empty string: an empty token would
// make the subject invalid ("a..b"), and "%" alone is never the escape of anything
// else.
const EmptyToken = escape.Empty

// EscapeToken makes a value taken from data (a device id, a topic level) safe as
// one subject token: it can add no token, no wildcard and nothing the server
// refuses. The bytes of '.', '*', '>', '%', a leading '$' (subjects starting with $
// belong to the server), whitespace, control characters and invalid UTF-8 become
// %XX (upper-case hex), as in a URL; the empty string becomes EmptyToken. Everything
// else is kept, so ordinary names are unchanged. UnescapeToken reverses it.
func EscapeToken(s string) string { return escape.Token(s, keepAt) }

// keepAt returns the length of the rune at s[i] if EscapeToken keeps it as it
// is, or 0 if it must be escaped.
func keepAt(s string, i int) int {
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && n == 1:
		return 0
	case r == '.', r == '*', r == '>', r == '%':
		return 0
	case r == '$' && i == 0:
		return 0
	case unicode.IsSpace(r), unicode.IsControl(r):
		return 0
	}
	return n
}

// UnescapeToken returns the value EscapeToken made token from.
func UnescapeToken(token string) (string, error) {
	return escape.UnescapeToken(token, "subject token")
}

// Subject joins values into a subject, each escaped to one token.
func Subject(values ...string) string {
	var b strings.Builder
	for i, v := range values {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(EscapeToken(v))
	}
	return b.String()
}

// Covers reports whether the stream subject filter takes in every subject that
// subject (which may end in the wildcard '>') names: "a.>" covers "a.b.>" and
// "a.b.c", "a.*" covers "a.b" but not "a.>".
func Covers(filter, subject string) bool {
	f, s := strings.Split(filter, "."), strings.Split(subject, ".")
	for i, ft := range f {
		switch {
		case ft == ">":
			return i < len(s)
		case i >= len(s):
			return false
		case ft == "*":
			if s[i] == ">" {
				return false
			}
		case ft != s[i]:
			return false
		}
	}
	return len(f) == len(s)
}
