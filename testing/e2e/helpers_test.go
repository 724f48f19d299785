package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
)

// Helpers shared by several suites of this package.

// daemonYAML is the head of a daemon file for a live run: results committed
// every 20 ms so tests wait little, the HTTP server on a free port, and the
// broker at url.
func daemonYAML(durability, url, clientID string) string {
	return fmt.Sprintf(`
durability: %s
commit_interval: 20ms
http: {listen: "127.0.0.1:0"}
broker: {url: %s, client_id: %s}
`, durability, url, clientID)
}

// tumblingDevice is a device file with one stream keyed by topic segment 1 and
// one 1 s tumbling window w on it that publishes its results with QoS 1.
type tumblingDevice struct {
	device, stream string
	topic          string // the stream's filter
	qos            int
	watermark      string // the stream's watermark mapping
	aggregates     string // a YAML list
	output         string // the result topic
}

func (d tumblingDevice) yaml() string {
	return fmt.Sprintf(`
device: %[1]s
streams:
  - name: %[2]s
    topic: %[3]s
    qos: %[4]d
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: %[5]s
windows:
  - name: w
    stream: %[2]s
    type: tumbling
    size: 1s
    aggregates: %[6]s
    output: {topic: "%[7]s", qos: 1}
`, d.device, d.stream, d.topic, d.qos, d.watermark, d.aggregates, d.output)
}

// connect connects a test client that the test closes at cleanup; what names
// the client in the failure message.
func connect(t testing.TB, what string, opts mqtt.Options) *mqtt.Client {
	t.Helper()
	c, err := mqtt.Connect(context.Background(), opts)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	t.Cleanup(func() { c.Close(time.Second) })
	return c
}
