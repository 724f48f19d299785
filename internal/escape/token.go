package escape

import (
	"fmt"
	"net/url"
	"unicode/utf8"
)

// Empty is what Token makes of the empty string: an empty level or token would
// merge with its neighbours ("a//b", "a..b"), and "%" alone is never the escape
// of anything else.
const Empty = "%"

// Token makes s safe as one token of a name: keep returns the length of the
// rune at s[i] if it may stay as it is, 0 if not. The bytes of every rune keep
// refuses become %XX (upper-case hex), as in a URL, so keep must refuse '%';
// the empty string becomes Empty. Everything keep accepts is kept, so ordinary
// values are unchanged (and not copied). UnescapeToken reverses it.
func Token(s string, keep func(s string, i int) int) string {
	if s == "" {
		return Empty
	}
	var b []byte // nil while s needs no escaping
	for i := 0; i < len(s); {
		n := keep(s, i)
		if n > 0 {
			if b != nil {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		if b == nil {
			b = append(make([]byte, 0, len(s)+8), s[:i]...)
		}
		_, n = utf8.DecodeRuneInString(s[i:])
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

// UnescapeToken returns the value Token made token from; what names the kind of
// token in an error ("topic level").
func UnescapeToken(token, what string) (string, error) {
	if token == Empty {
		return "", nil
	}
	v, err := url.PathUnescape(token)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", what, token, err)
	}
	return v, nil
}
