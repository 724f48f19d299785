package mqtt

import (
	"fmt"
	"testing"
)

// Run with:
//
//	go test -run '^$' -bench 'Extract|TopicMatch' -benchmem ./mqtt/

func BenchmarkExtract(b *testing.B) {
	cases := []struct {
		name    string
		spec    ExtractSpec
		payload string
	}{
		{"MillisWithKeyField", ExtractSpec{Timestamp: "ts", Unit: Millis, KeyField: "sensor", KeySegment: -1, Values: []string{"temp", "hum"}},
			`{"sensor":"s-42","ts":1733140000123,"temp":21.5,"hum":40.25}`},
		{"FractionalSecondsWithTopicKey", ExtractSpec{Timestamp: "ts", Unit: Seconds, KeySegment: 1, Values: []string{"temp", "hum"}},
			`{"sensor":"s-42","ts":1733140000.123,"temp":21.5,"hum":40.25}`},
		{"RFC3339", ExtractSpec{Timestamp: "ts", Unit: RFC3339, KeyField: "sensor", KeySegment: -1, Values: []string{"temp"}},
			`{"sensor":"s-42","ts":"2024-12-02T12:26:40.123Z","temp":21.5}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			e := NewExtractor(c.spec)
			payload := []byte(c.payload)
			var r Reading
			b.ReportAllocs()
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				if err := e.Extract("sensors/s-42/data", payload, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkExtractThousandKeys(b *testing.B) {
	e := NewExtractor(ExtractSpec{Timestamp: "ts", Unit: Millis, KeyField: "sensor", KeySegment: -1, Values: []string{"temp"}})
	payloads := make([][]byte, 1000)
	for i := range payloads {
		payloads[i] = fmt.Appendf(nil, `{"sensor":"s-%d","ts":%d,"temp":21.5}`, i, 1733140000000+int64(i))
	}
	var r Reading
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := e.Extract("sensors/data", payloads[i%len(payloads)], &r); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkTopicMatch(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if !TopicMatch("sensors/+/data/#", "sensors/s-42/data/temp/raw") {
			b.Fatal("no match")
		}
	}
}
