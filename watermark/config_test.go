package watermark

import (
	"strings"
	"testing"
)

func TestStrategyAndIdleModeNamesRoundTrip(t *testing.T) {
	for _, s := range []Strategy{Bounded, Monotonous, Punctuated} {
		got, err := ParseStrategy(s.String())
		if err != nil || got != s {
			t.Errorf("ParseStrategy(%q) = %v, %v; want %v", s.String(), got, err, s)
		}
	}
	for _, m := range []IdleMode{Advance, Hold} {
		got, err := ParseIdleMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseIdleMode(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
}

func TestZeroValuesAreTheDefaults(t *testing.T) {
	var c Config
	if c.Strategy != Bounded || c.IdleMode != Advance {
		t.Fatalf("zero Config is %v/%v, want bounded/advance", c.Strategy, c.IdleMode)
	}
}

func TestUnknownNamesAreErrorsThatListTheValidOnes(t *testing.T) {
	cases := []struct {
		name  string
		parse func(string) error
		input string
		valid []string
	}{
		{"unknown strategy", func(s string) error { _, err := ParseStrategy(s); return err }, "periodic",
			[]string{`"periodic"`, "bounded", "monotonous", "punctuated"}},
		{"strategy names are case sensitive", func(s string) error { _, err := ParseStrategy(s); return err }, "Bounded",
			[]string{`"Bounded"`, "bounded"}},
		{"unknown idle mode", func(s string) error { _, err := ParseIdleMode(s); return err }, "skip",
			[]string{`"skip"`, "advance", "hold"}},
		{"empty idle mode", func(s string) error { _, err := ParseIdleMode(s); return err }, "",
			[]string{`""`, "advance", "hold"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.parse(c.input)
			if err == nil {
				t.Fatalf("parsing %q succeeded", c.input)
			}
			for _, v := range c.valid {
				if !strings.Contains(err.Error(), v) {
					t.Errorf("error %q does not mention %s", err, v)
				}
			}
		})
	}
}

func TestStringsNameEveryValue(t *testing.T) {
	cases := []struct{ got, want string }{
		{Bounded.String(), "bounded"},
		{Monotonous.String(), "monotonous"},
		{Punctuated.String(), "punctuated"},
		{Strategy(9).String(), "Strategy(9)"},
		{Advance.String(), "advance"},
		{Hold.String(), "hold"},
		{IdleMode(7).String(), "IdleMode(7)"},
		{Accepted.String(), "accepted"},
		{Reactivated.String(), "reactivated"},
		{Future.String(), "future"},
		{Verdict(5).String(), "Verdict(5)"},
		{Status{Watermark: Min}.String(), "min active"},
		{Status{Watermark: 94_999, Idle: true}.String(), "94999 idle"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
