package tune

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

func TestDelayIsBehindTheMaxAndSaturates(t *testing.T) {
	cases := []struct{ max, ts, want int64 }{
		{100, 100, 0},
		{100, 90, 10},
		{100, 120, 0}, // cannot happen (max is after the reading) but reads as in order
		{math.MaxInt64, math.MinInt64, math.MaxInt64},
		{math.MaxInt64, -1, math.MaxInt64},
		{math.MaxInt64, 0, math.MaxInt64},
		{0, math.MinInt64 + 1, math.MaxInt64},
	}
	for _, c := range cases {
		if got := Delay(c.max, c.ts); got != c.want {
			t.Errorf("Delay(%d, %d) = %d, want %d", c.max, c.ts, got, c.want)
		}
	}
}

// The buckets tile 0..MaxInt64 in order, each at most 1/16 of its lowest
// value wide, and every delay lands in the bucket whose range holds it.
func TestHistBucketsTileEveryDelay(t *testing.T) {
	next := int64(0)
	for i := range HistBuckets {
		lo, hi := histRange(i)
		if lo != next || hi < lo {
			t.Fatalf("bucket %d is [%d, %d], want it to start at %d", i, lo, hi, next)
		}
		if i < HistBuckets-1 && hi-lo+1 > max(1, lo/16) {
			t.Fatalf("bucket %d [%d, %d] is wider than 1/16 of %d", i, lo, hi, lo)
		}
		for _, d := range []int64{lo, lo + (hi-lo)/2, hi} {
			if b := histBucket(d); b != i {
				t.Fatalf("delay %d is in bucket %d, want %d [%d, %d]", d, b, i, lo, hi)
			}
		}
		next = hi + 1
	}
	if _, hi := histRange(HistBuckets - 1); hi != math.MaxInt64 {
		t.Fatalf("the last bucket ends at %d", hi)
	}
	for d := range int64(1 << 16) { // every delay up to 65 s
		if lo, hi := histRange(histBucket(d)); d < lo || d > hi {
			t.Fatalf("delay %d in bucket [%d, %d]", d, lo, hi)
		}
	}
}

// histAgrees checks a Hist fed samples against the exact Dist: for every
// quantile the table shows and a few more, the same bucket, never below, and
// the max exact.
func histAgrees(t *testing.T, samples []int64) {
	t.Helper()
	var h Hist
	for _, d := range samples {
		h.Record(d)
	}
	s, d := h.Snapshot(), NewDist(samples)
	if s.Len() != int64(d.Len()) {
		t.Fatalf("%v: %d readings, want %d", samples, s.Len(), d.Len())
	}
	for _, q := range append([]PPM{0, 1, 250_000, 333_334, 750_000, 999_999}, Percentiles...) {
		want, ok := d.Quantile(q)
		got, gok := s.Quantile(q)
		if ok != gok || histBucket(got) != histBucket(want) || got < want {
			t.Fatalf("%v: q=%d ppm: hist %d (%v), exact %d (%v)", samples, q, got, gok, want, ok)
		}
	}
	if got, _ := s.Quantile(Whole); len(samples) > 0 && got != d.s[len(d.s)-1] {
		t.Fatalf("%v: max %d", samples, got)
	}
}

// Every multiset of up to 5 delays from values on either side of bucket
// edges.
func TestHistQuantilesMatchTheExactOnesExhaustively(t *testing.T) {
	values := []int64{0, 1, 15, 16, 17, 31, 32, 33, 999, 1000, 1023, 1024, 1 << 32, math.MaxInt64}
	checked := 0
	var gen func(prefix []int64, from int)
	gen = func(prefix []int64, from int) {
		histAgrees(t, prefix)
		checked++
		if len(prefix) == 5 {
			return
		}
		for i := from; i < len(values); i++ {
			gen(append(prefix, values[i]), i)
		}
	}
	gen(nil, 0)
	t.Logf("%d multisets", checked)
	var empty HistSnapshot
	if _, ok := empty.Quantile(Whole / 2); ok {
		t.Fatal("an empty histogram has a median")
	}
}

func TestHistQuantilesMatchOnRandomDelays(t *testing.T) {
	const seed = 13
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	for range 200 {
		samples := make([]int64, 1+r.IntN(5000))
		scale := int64(1) << r.IntN(36)
		for i := range samples {
			samples[i] = r.Int64N(scale) // mostly small, a long tail: exponents vary per set
		}
		histAgrees(t, samples)
	}
}

func TestHistNearestRankDoesNotOverflow(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		q    PPM
		want uint64
	}{
		{100, 990_000, 99}, {1000, 999_001, 1000}, {7, 0, 1}, {7, -5, 1}, {7, 2 * Whole, 7},
		{math.MaxUint64, Whole, math.MaxUint64}, {math.MaxUint64, Whole / 2, 1 << 63},
	} {
		if got := nearestRank(c.n, c.q); got != c.want {
			t.Errorf("nearestRank(%d, %d) = %d, want %d", c.n, c.q, got, c.want)
		}
	}
}

func TestHistCountsEveryConcurrentRecord(t *testing.T) {
	var h Hist
	var wg sync.WaitGroup
	const writers, each = 4, 10_000
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				h.Record(int64(w*each + i))
			}
		}()
	}
	for range 100 { // a snapshot taken meanwhile counts no delay above its max
		s := h.Snapshot()
		for i := HistBuckets - 1; i >= 0; i-- {
			if lo, _ := histRange(i); s.counts[i] > 0 && lo > s.max {
				t.Fatalf("bucket %d counts delays from %d, above the max %d", i, lo, s.max)
			}
		}
	}
	wg.Wait()
	s := h.Snapshot()
	if s.Len() != writers*each || s.max != writers*each-1 {
		t.Fatalf("%d readings, max %d", s.Len(), s.max)
	}
}
