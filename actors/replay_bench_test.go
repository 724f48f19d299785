package actors

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"
)

// BenchmarkReplay measures events/s through the whole topology (decode, watermark,
// route, window, commit to in-memory Badger, encode results) on 1,000 sensors with a
// 10 s tumbling window of count/avg/min/max/p95. It reports events/s and
// allocs/event: the runtime's performance targets are stated per event.
//
//	go test -run '^$' -bench Replay -benchmem ./actors/
func BenchmarkReplay(b *testing.B) {
	cfg := replayConfig(b, `
device: bench
streams:
  - name: s
    topic: sensors/+/data
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 500ms}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 10s
    aggregates: [count, avg(temp), min(temp), max(temp), p95(temp)]
`)
	const sensors, perSensor = 1000, 100
	var in bytes.Buffer
	base := int64(1_733_140_000_000)
	for i := range perSensor {
		for s := range sensors {
			ts := base + int64(i)*100 - int64((s*7+i*13)%400)
			fmt.Fprintf(&in, `{"at":%d,"topic":"sensors/s-%d/data","payload":{"sensor":"s-%d","ts":%d,"temp":%d.5,"hum":40.1}}`+"\n",
				base+int64(i)*100, s, s, ts, 20+(s+i)%10)
		}
	}
	input := in.Bytes()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		st, err := Replay(ReplayOptions{Config: cfg, Input: bytes.NewReader(input), Output: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		if st.Results == 0 {
			b.Fatal("no results")
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	// Count every allocation of the replays, Badger's and protoactor's included.
	events := float64(sensors * perSensor * b.N)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/events, "allocs/event")
}
