package persist

import (
	"testing"
	"time"
)

// BenchmarkHasMark looks up a mark that is not there (the costly case: every log
// and chunk is read) in a store holding an hour of 1,000 marks a second: 360
// sealed segments and a current one of 100 logs.
func BenchmarkHasMark(b *testing.B) {
	clock := newTestClock()
	clock.add(-time.Hour)
	s := openStore(b, Options{Durability: Memory, DedupTTL: 2 * time.Hour, clock: clock.now})
	s.sealer.close()
	id := uint64(0)
	for range 361 {
		for range 100 {
			bt := s.NewBatch()
			for range 100 {
				bt.PutMark("dev", "1m", "k", id)
				id++
			}
			if err := s.Commit(bt); err != nil {
				b.Fatal(err)
			}
		}
		clock.add(markSegment)
		if err := s.sealOver(nil, &s.sealer.logs); err != nil {
			b.Fatal(err)
		}
	}
	clock.add(-markSegment)
	b.ResetTimer()
	for i := range b.N {
		if ok, err := s.HasMark("dev", "1m", "k", id+uint64(i)); ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
