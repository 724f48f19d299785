package mqtt_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
)

func TestRedactURLHidesUserinfoWhetherOrNotTheURLParses(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tcp://127.0.0.1:1883", "tcp://127.0.0.1:1883"},
		{"tcp://edge:s3cret@gw:1883", "tcp://xxxxx@gw:1883"},
		{"ssl://token@cloud:8883", "ssl://xxxxx@cloud:8883"},
		{"wss://edge:p/w@d@cloud/mqtt", "wss://xxxxx@cloud/mqtt"}, // unescaped / and @ in the password
		{"tcp//edge:s3cret@gw:1883", "xxxxx@gw:1883"},             // no scheme separator
		{"embedded", "embedded"},
	}
	for _, tt := range tests {
		if got := mqtt.RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestConnectErrorsNeverQuoteThePassword(t *testing.T) {
	for _, url := range []string{"tcp://edge:s3cret@127.0.0.1:1", "http://edge:s3cret@gw:1883", "tcp://edge:s3cret@gw:1883/%zz"} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_, err := mqtt.Connect(ctx, mqtt.Options{URL: url, CleanSession: true, ConnectTimeout: 100 * time.Millisecond})
		cancel()
		if err == nil {
			t.Fatalf("Connect(%q) succeeded", url)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Connect(%q) error quotes the password: %v", url, err)
		}
	}
}
