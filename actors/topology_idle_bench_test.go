package actors

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// BenchmarkIdleSensors measures what sensors cost while they wait: 1,000 sensors
// read once, then a replay ticks through a minute of quiet, in which they go idle
// after 30 s and advance their watermarks (the default), until one reads again. It
// reports the time per sensor and second of quiet, which on a gateway is CPU spent
// on nothing:
//
//	go test -run '^$' -bench IdleSensors ./actors/
func BenchmarkIdleSensors(b *testing.B) {
	cfg := replayConfig(b, `
device: idle
streams:
  - name: s
    topic: sensors/+/data
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 500ms, idle_timeout: 30s}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 10s
    aggregates: [count, avg(temp)]
`)
	const sensors, quietMS = 1000, 60_000
	var in bytes.Buffer
	base := int64(1_733_140_000_000)
	line := func(at int64, s int) {
		fmt.Fprintf(&in, `{"at":%d,"topic":"sensors/s-%d/data","payload":{"ts":%d,"temp":20.5}}`+"\n", at, s, at)
	}
	for s := range sensors {
		line(base, s)
	}
	line(base+quietMS, 0)
	input := in.Bytes()
	b.ResetTimer()
	for range b.N {
		if _, err := Replay(ReplayOptions{Config: cfg, Input: bytes.NewReader(input), Output: io.Discard}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*sensors*quietMS/1000), "ns/sensor-s")
}
