package sim

import (
	"testing"
	"time"
)

// BenchmarkFeedNext measures generating one reading of a 1,000-sensor feed.
// Run: go test ./internal/sim -run '^$' -bench FeedNext
func BenchmarkFeedNext(b *testing.B) {
	b.ReportAllocs()
	f, err := NewFeed(Config{Sensors: 1000, Rate: 10, Disorder: 500 * time.Millisecond, Seed: 1, Start: testStart})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, ok := f.Next(); !ok {
			b.Fatal("an endless feed ended")
		}
	}
}
