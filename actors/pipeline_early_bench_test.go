package actors

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/edged/edged/configs"
)

// BenchmarkReplayEarlyFirings measures what early firings cost the whole topology:
// 100,000 events over 1,000 or 10,000 sensors into a 1 h window, with early firings
// off or every second. Each event changes its window, so with early firings on each
// also costs one early result: the worst case.
//
//	go test -run '^$' -bench ReplayEarlyFirings -benchtime 2x ./actors/
func BenchmarkReplayEarlyFirings(b *testing.B) {
	for _, sensors := range []int{1_000, 10_000} {
		for _, early := range []string{"0s", "1s"} {
			b.Run(fmt.Sprintf("sensors=%d/early=%s", sensors, early), func(b *testing.B) {
				dev, err := configs.ParseDevice("bench.yaml", []byte(`
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
    size: 1h
    early: `+early+`
    aggregates: [count, avg(temp), max(temp)]
`))
				if err != nil {
					b.Fatal(err)
				}
				cfg := &configs.Daemon{CommitInterval: 100_000_000, DedupTTL: 3600_000_000_000,
					Limits: configs.Limits{MaxInflight: 10000}, Devices: []*configs.Device{dev}}
				// Every sensor reports once per round, spread over it; rounds of 1 s
				// (1,000 sensors) or 10 s (10,000) fill 100 s of processing time.
				perSensor := 100_000 / sensors
				round := int64(100_000 / perSensor)
				var in bytes.Buffer
				base := int64(1_733_140_800_000) // an hour boundary, so the window stays open
				for i := range perSensor {
					for s := range sensors {
						at := base + int64(i)*round + int64(s)*round/int64(sensors)
						fmt.Fprintf(&in, `{"at":%d,"topic":"sensors/s-%d/data","payload":{"ts":%d,"temp":%d.5}}`+"\n", at, s, at, 20+(s+i)%10)
					}
				}
				input := in.Bytes()
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					st, err := Replay(ReplayOptions{Config: cfg, Input: bytes.NewReader(input), Output: io.Discard})
					if err != nil {
						b.Fatal(err)
					}
					if st.Results < sensors {
						b.Fatalf("%d results for %d sensors", st.Results, sensors)
					}
					b.ReportMetric(float64(st.Results), "results")
				}
				b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
