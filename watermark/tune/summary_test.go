package tune

import (
	"slices"
	"testing"

	"github.com/edged/edged/watermark"
)

// delayed returns a stream whose readings have exactly the given delays: a
// first reading at 1,000,000 then one reading per delay behind it, 10 ms apart.
func delayed(delays ...int64) *Stream {
	s := NewStream(watermark.Config{})
	s.Observe(1_000_000, 0)
	for i, d := range delays {
		s.Observe(1_000_000-d, int64(i+1)*10)
	}
	return s
}

func TestRecommendedBoundMeetsTheTargetExactly(t *testing.T) {
	s := Pool(delayed(seq(1, 999)...)) // delays 0..999, 1,000 readings
	cases := []struct {
		target   PPM
		bound    int64
		lateN    int
		lateFrac PPM
	}{
		{0, 999, 0, 0},
		{1000, 998, 1, 1000},      // 0.1%: one reading may be late
		{10_000, 989, 10, 10_000}, // 1%
		{999, 999, 0, 0},          // 0.0999% of 1,000 is less than one reading
		{500_000, 499, 500, 500_000},
	}
	for _, c := range cases {
		r := s.Recommend(c.target)
		if !r.HasBound || r.Bound != c.bound {
			t.Errorf("target %d ppm: bound %d (%v), want %d", c.target, r.Bound, r.HasBound, c.bound)
		}
		if n, f := s.Late(r.Bound); n != c.lateN || f != c.lateFrac {
			t.Errorf("target %d ppm: late %d (%d ppm), want %d (%d ppm)", c.target, n, f, c.lateN, c.lateFrac)
		}
	}
}

func TestPercentilesOfConstructedDelays(t *testing.T) {
	s := Pool(delayed(seq(1, 999)...))
	var got []int64
	for _, q := range Percentiles {
		v, _ := s.Delays.Quantile(q)
		got = append(got, v)
	}
	if want := []int64{499, 899, 989, 998, 999}; !slices.Equal(got, want) {
		t.Fatalf("P50/P90/P99/P99.9/max = %v, want %v", got, want)
	}
}

func TestPoolMeasuresEachDelayOnItsOwnStream(t *testing.T) {
	// b is far ahead of a in event time; pooled, a's readings are still only
	// behind a's own max.
	a := observed(watermark.Config{}, reading{100, 0}, reading{95, 10})
	b := observed(watermark.Config{}, reading{9_000, 0}, reading{8_000, 20}, reading{9_100, 30})
	s := Pool(a, b)
	if s.Readings != 5 || !slices.Equal(s.Delays.s, []int64{0, 0, 0, 5, 1000}) {
		t.Fatalf("readings %d delays %v", s.Readings, s.Delays.s)
	}
	if !slices.Equal(s.Gaps.s, []int64{10, 10, 20}) {
		t.Fatalf("gaps %v", s.Gaps.s)
	}
}

func TestRecommendedIdleTimeoutOutlastsAllButTheTargetOfGaps(t *testing.T) {
	// Gaps of 10 ms, and one of 5 s out of 1,000.
	s := NewStream(watermark.Config{})
	at := int64(0)
	for i := range 1001 {
		if i == 500 {
			at += 5000
		} else if i > 0 {
			at += 10
		}
		s.Observe(int64(i), at)
	}
	p := Pool(s)
	if r := p.Recommend(1000); !r.HasIdleTimeout || r.IdleTimeout != 11 {
		t.Errorf("0.1%%: idle timeout %d (%v), want 11", r.IdleTimeout, r.HasIdleTimeout)
	}
	if r := p.Recommend(0); r.IdleTimeout != 5001 {
		t.Errorf("0%%: idle timeout %d, want 5001", r.IdleTimeout)
	}
	if r := Pool(delayed()).Recommend(1000); r.HasIdleTimeout {
		t.Errorf("one reading has no gaps, yet idle timeout %d", r.IdleTimeout)
	}
}

func TestExtraLatencyPoolsTheMedian(t *testing.T) {
	a := observed(watermark.Config{}, reading{0, 0}, reading{100, 100}, reading{200, 200})
	b := observed(watermark.Config{}, reading{0, 0}, reading{100, 400}, reading{200, 800})
	s := Pool(a, b)
	// Samples for bound 100: a 100, 100; b 400, 400. Nearest-rank median: 100.
	if v, ok := s.ExtraLatency(100); !ok || v != 100 {
		t.Errorf("median %d, %v; want 100", v, ok)
	}
	if _, ok := s.ExtraLatency(1000); ok {
		t.Error("a bound the recording never covers has a latency")
	}
}

func TestCandidatesSpanMedianToMax(t *testing.T) {
	d := NewDist([]int64{0, 30, 30, 40, 700})
	if got, want := Candidates(d, 250, 30), []int64{20, 30, 50, 100, 200, 250, 500, 1000}; !slices.Equal(got, want) {
		t.Errorf("candidates %v, want %v", got, want)
	}
	if got, want := Candidates(NewDist([]int64{0, 0})), []int64{0}; !slices.Equal(got, want) {
		t.Errorf("in-order stream: candidates %v, want %v", got, want)
	}
	if got := Candidates(NewDist(), 500); !slices.Equal(got, []int64{500}) {
		t.Errorf("no readings: candidates %v", got)
	}
}
