package watermark

import "testing"

// Run with: go test ./watermark -run '^$' -bench . -benchmem

func BenchmarkGeneratorObserve(b *testing.B) {
	g := NewGenerator(Config{Strategy: Bounded, MaxOutOfOrderness: 5_000, IdleTimeout: 60_000, MaxFutureSkew: 60_000})
	b.ReportAllocs()
	var now int64
	for i := range b.N {
		now++
		// Out of order by up to 3 s around a clock that advances 1 ms a record.
		g.Observe(1_000_000+now-int64(i%7)*500, now)
	}
}

func BenchmarkGeneratorTick(b *testing.B) {
	g := NewGenerator(Config{Strategy: Bounded, MaxOutOfOrderness: 5_000, IdleTimeout: 1_000})
	g.Observe(1_000_000, 0)
	b.ReportAllocs()
	var now int64
	for range b.N {
		now += 200 // idle after 5 ticks; then each tick extrapolates
		g.Tick(now)
	}
}
