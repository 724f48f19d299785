package natsjs

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EmptyToken is what EscapeToken makes of the empty string: an empty token would
// make the subject invalid ("a..b"), and "%" alone is never the escape of anything
// else.
const EmptyToken = "%"

// EscapeToken makes a value taken from data (a device id, a topic level) safe as
// one subject token: it can add no token, no wildcard and nothing the server
// refuses. The bytes of '.', '*', '>', '%', a leading '$' (subjects starting with $
// belong to the server), whitespace, control characters and invalid UTF-8 become
// %XX (upper-case hex), as in a URL; the empty string becomes EmptyToken. Everything
// else is kept, so ordinary names are unchanged. UnescapeToken reverses it.
func EscapeToken(s string) string {
	if s == "" {
		return EmptyToken
	}
	var b []byte // nil while s needs no escaping
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if keep(r, n, i) {
			if b != nil {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		if b == nil {
			b = append(make([]byte, 0, len(s)+8), s[:i]...)
		}
		for _, c := range []byte(s[i : i+n]) {
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i += n
	}
	if b == nil {
		return s
	}
	return string(b)
}

const hexDigits = "0123456789ABCDEF"

// keep reports whether EscapeToken keeps the rune r (n bytes, at byte i) as it is.
func keep(r rune, n, i int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return false
	case r == '.', r == '*', r == '>', r == '%':
		return false
	case r == '$' && i == 0:
		return false
	case unicode.IsSpace(r), unicode.IsControl(r):
		return false
	}
	return true
}

// UnescapeToken returns the value EscapeToken made token from.
func UnescapeToken(token string) (string, error) {
	if token == EmptyToken {
		return "", nil
	}
	v, err := url.PathUnescape(token)
	if err != nil {
		return "", fmt.Errorf("subject token %q: %w", token, err)
	}
	return v, nil
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
