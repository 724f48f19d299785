package mqtt_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
)

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
