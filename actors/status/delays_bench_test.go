package status

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/watermark"
)

// benchDelays are event times behind a running max: mostly in order, a tail late by
// up to ~16 s, so the buckets touched vary as a real stream's do.
func benchDelays() (maxes, ts []int64) {
	r := rand.New(rand.NewPCG(1, 1))
	hi := int64(1_733_140_000_000)
	for i := range 1024 {
		t := hi + 10
		if i%3 == 0 {
			t = hi - r.Int64N(1<<r.IntN(15))
		}
		hi = max(hi, t)
		maxes, ts = append(maxes, hi), append(ts, t)
	}
	return maxes, ts
}

// BenchmarkRecordDelay is what the record path pays for the delay distribution: one
// call per accepted reading. parallel: every core's sources record into the one
// stream definition at once, the worst case for the shared counters.
//
//	go test -run '^$' -bench RecordDelay -benchmem ./actors/status/
func BenchmarkRecordDelay(b *testing.B) {
	maxes, ts := benchDelays()
	b.Run("one", func(b *testing.B) {
		d := &Delays{strategy: watermark.Bounded, bound: 500}
		b.ReportAllocs()
		for i := range b.N {
			d.Record(maxes[i&1023], ts[i&1023])
		}
	})
	b.Run("parallel", func(b *testing.B) {
		d := &Delays{strategy: watermark.Bounded, bound: 500}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				d.Record(maxes[i&1023], ts[i&1023])
			}
		})
	})
}

// BenchmarkStatusDelays builds the delay rows of 1,000 stream definitions, as the
// sampler does every Every.
//
//	go test -run '^$' -bench StatusDelays -benchmem ./actors/status/
func BenchmarkStatusDelays(b *testing.B) {
	stats := NewStats()
	maxes, ts := benchDelays()
	cfg := watermark.Config{Strategy: watermark.Bounded, MaxOutOfOrderness: 500}
	for i := range 1000 {
		d := stats.Delays(stats.Topic(fmt.Sprintf("dev%d", i), "s", "t"), cfg)
		for j := range maxes {
			d.Record(maxes[j], ts[j])
		}
	}
	s := NewSampler(prometheus.NewRegistry(), stats, 0, nil, nil)
	st := &Status{}
	now := time.Now().UnixMilli()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.sampleDelays(st, now)
	}
}
