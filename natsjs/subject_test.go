package natsjs

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestEscapeTokenKeepsOrdinaryNamesAndEscapesWhatWouldBreakASubject(t *testing.T) {
	tests := []struct{ in, want string }{
		{"boiler-room", "boiler-room"},
		{"", "%"},
		{"gw1.example.com", "gw1%2Eexample%2Ecom"},
		{"a*b>c", "a%2Ab%3Ec"},
		{"50%", "50%25"},
		{"$SYS", "%24SYS"},
		{"a$b", "a$b"},
		{"two words\tand\nlines", "two%20words%09and%0Alines"},
		{"température", "température"},
		{"\xff", "%FF"},
	}
	for _, tt := range tests {
		if got := EscapeToken(tt.in); got != tt.want {
			t.Errorf("EscapeToken(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEscapeTokenIsOneValidTokenAndReversible(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		if rapid.Bool().Draw(t, "binary") {
			s = string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes"))
		}
		tok := EscapeToken(s)
		if tok == "" || strings.ContainsAny(tok, ".*> \t\r\n\f\v") || strings.HasPrefix(tok, "$") {
			t.Fatalf("EscapeToken(%q) = %q is not one plain token", s, tok)
		}
		back, err := UnescapeToken(tok)
		if err != nil || back != s {
			t.Fatalf("UnescapeToken(EscapeToken(%q)) = %q, %v", s, back, err)
		}
	})
}

func TestCoversTellsWhetherAStreamTakesInASubject(t *testing.T) {
	tests := []struct {
		filter, subject string
		want            bool
	}{
		{"edged.>", "edged.gw1.>", true},
		{"edged.gw1.>", "edged.gw1.>", true},
		{">", "edged.gw1.>", true},
		{"edged.*.>", "edged.gw1.>", true},
		{"edged.gw2.>", "edged.gw1.>", false},
		{"edged.gw1.>", "edged.>", false},
		{"edged.*", "edged.>", false},
		{"edged.*", "edged.gw1", true},
		{"edged.gw1", "edged.gw1.>", false},
	}
	for _, tt := range tests {
		if got := Covers(tt.filter, tt.subject); got != tt.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tt.filter, tt.subject, got, tt.want)
		}
	}
}
