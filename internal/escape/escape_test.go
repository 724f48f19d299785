package escape

import "testing"

func TestTokenEscapesWhatKeepRefusesAndUnescapeTokenReversesIt(t *testing.T) {
	noSlash := func(s string, i int) int {
		if s[i] == '/' || s[i] == '%' {
			return 0
		}
		return 1
	}
	for _, tt := range []struct{ in, want string }{
		{"", Empty},
		{"plain", "plain"},
		{"a/b%", "a%2Fb%25"},
	} {
		got := Token(tt.in, noSlash)
		if got != tt.want {
			t.Errorf("Token(%q) = %q, want %q", tt.in, got, tt.want)
		}
		back, err := UnescapeToken(got, "token")
		if err != nil || back != tt.in {
			t.Errorf("UnescapeToken(%q) = %q, %v; want %q", got, back, err, tt.in)
		}
	}
	if _, err := UnescapeToken("%zz", "topic level"); err == nil || err.Error() != `topic level "%zz": invalid URL escape "%zz"` {
		t.Errorf("UnescapeToken(%%zz): %v", err)
	}
}

func TestAppendJSONQuotesAsEncodingJSONDoes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"s-1", `"s-1"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"tab\there", `"tab\there"`},
		{"é<", `"é\u003c"`},
	} {
		if got := string(AppendJSON([]byte("x"), tt.in)); got != "x"+tt.want {
			t.Errorf("AppendJSON(%q) = %s, want x%s", tt.in, got, tt.want)
		}
	}
}
