package redact

import "testing"

func TestURLHidesUserinfoWhetherOrNotTheURLParses(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tcp://127.0.0.1:1883", "tcp://127.0.0.1:1883"},
		{"tcp://edge:s3cret@gw:1883", "tcp://xxxxx@gw:1883"},
		{"ssl://token@cloud:8883", "ssl://xxxxx@cloud:8883"},
		{"wss://edge:p/w@d@cloud/mqtt", "wss://xxxxx@cloud/mqtt"}, // unescaped / and @ in the password
		{"tcp//edge:s3cret@gw:1883", "xxxxx@gw:1883"},             // no scheme separator
		{"embedded", "embedded"},
	}
	for _, tt := range tests {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
