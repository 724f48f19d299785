package mqtt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscapeLevelKeepsOrdinaryKeysAndEscapesWhatBreaksATopic(t *testing.T) {
	tests := []struct{ in, want string }{
		{"s-1", "s-1"},
		{"temp.hall_2", "temp.hall_2"},
		{"café", "café"},
		{"a b", "a b"},
		{"", "%"},
		{"a/b", "a%2Fb"},
		{"/", "%2F"},
		{"a+b", "a%2Bb"},
		{"#", "%23"},
		{"a\x00b", "a%00b"},
		{"100%", "100%25"},
		{"%", "%25"},
		{"$SYS", "%24SYS"},
		{"a$", "a$"},
		{"tab\there", "tab%09here"},
		{"del\x7f", "del%7F"},
		{"c1\u0085", "c1%C2%85"},
		{"nonchar\ufffe", "nonchar%EF%BF%BE"},
		{"bad\xffutf8", "bad%FFutf8"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := EscapeLevel(tt.in)
			if got != tt.want {
				t.Fatalf("EscapeLevel(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !ValidTopicName("edged/d/w/"+got) || strings.Contains(got, "/") {
				t.Fatalf("EscapeLevel(%q) = %q is not one valid topic level", tt.in, got)
			}
			back, err := UnescapeLevel(got)
			if err != nil || back != tt.in {
				t.Fatalf("UnescapeLevel(%q) = %q, %v; want %q", got, back, err, tt.in)
			}
		})
	}
}

func TestUnescapeLevelRefusesATruncatedEscape(t *testing.T) {
	for _, in := range []string{"a%", "a%2", "%zz", "%%"} {
		if got, err := UnescapeLevel(in); err == nil {
			t.Errorf("UnescapeLevel(%q) = %q, want an error", in, got)
		}
	}
}

func TestValidTopicNameRefusesWhatABrokerRefuses(t *testing.T) {
	tests := []struct {
		topic string
		want  bool
	}{
		{"edged/d/w/s-1", true},
		{"a", true},
		{"/", true},
		{"a//b", true},
		{"$SYS/x", true},
		{"a/100%", true},
		{"", false},
		{"a/#", false},
		{"a/+/b", false},
		{"a\x00b", false},
		{"a\nb", false},
		{"a\u0085", false},
		{"a\uffff", false},
		{"a\xc3", false},
		{strings.Repeat("x", MaxTopicBytes), true},
		{strings.Repeat("x", MaxTopicBytes+1), false},
	}
	for _, tt := range tests {
		if got := ValidTopicName(tt.topic); got != tt.want {
			t.Errorf("ValidTopicName(%.40q) = %v, want %v", tt.topic, got, tt.want)
		}
	}
}

// Run the fuzzer with, for example:
//
//	go test -run '^$' -fuzz FuzzEscapeLevel -fuzztime 60s ./mqtt/
func FuzzEscapeLevel(f *testing.F) {
	for _, s := range []string{"", "s-1", "a/b", "+#", "\x00", "%", "%25", "$x", "\xff\xfe", "\ufffe", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := EscapeLevel(s)
		if strings.ContainsAny(e, "/+#") || e == "" || !utf8.ValidString(e) {
			t.Fatalf("EscapeLevel(%q) = %q: not a single level", s, e)
		}
		if !ValidTopicName("p/" + e) {
			t.Fatalf("EscapeLevel(%q) = %q: the topic is invalid", s, e)
		}
		if e[0] == '$' {
			t.Fatalf("EscapeLevel(%q) = %q starts with $", s, e)
		}
		back, err := UnescapeLevel(e)
		if err != nil || back != s {
			t.Fatalf("UnescapeLevel(EscapeLevel(%q)) = %q, %v", s, back, err)
		}
	})
}
