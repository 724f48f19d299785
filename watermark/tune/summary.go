package tune

import "slices"

// Summary pools one or more streams: the streams of one configured topic
// filter share one max_out_of_orderness, so its recommendation is made over
// all their readings, each delay still measured on its own stream.
type Summary struct {
	Readings, Future int
	Delays, Gaps     Dist
	streams          []*Stream
}

// Pool summarizes streams together.
func Pool(streams ...*Stream) Summary {
	s := Summary{streams: streams}
	delays := make([][]int64, 0, len(streams))
	gaps := make([][]int64, 0, len(streams))
	for _, st := range streams {
		s.Readings += st.Readings()
		s.Future += st.Future()
		delays = append(delays, st.delays)
		gaps = append(gaps, st.gaps)
	}
	s.Delays, s.Gaps = NewDist(delays...), NewDist(gaps...)
	return s
}

// Percentiles are the quantiles the table shows: P50, P90, P99, P99.9, max.
var Percentiles = []PPM{500_000, 900_000, 990_000, 999_000, Whole}

// Late counts the readings a bound b would leave behind the watermark, and
// their fraction.
func (s Summary) Late(b int64) (int, PPM) {
	n := s.Delays.Above(b)
	return n, s.Delays.Fraction(n)
}

// ExtraLatency is the median (nearest rank) of the streams' ExtraLatency
// samples for bound b; ok is false when the recording gave none.
func (s Summary) ExtraLatency(b int64) (int64, bool) {
	samples := make([][]int64, 0, len(s.streams))
	for _, st := range s.streams {
		samples = append(samples, st.ExtraLatency(b))
	}
	return NewDist(samples...).Quantile(Whole / 2)
}

// Recommendation is a bound and an idle timeout chosen for a target late
// fraction. A field is meaningful only when its Has flag is set.
type Recommendation struct {
	Bound, IdleTimeout       int64 // ms
	HasBound, HasIdleTimeout bool
}

// Recommend picks the smallest bound that leaves at most target of the
// readings behind the watermark, and the smallest idle timeout that at most
// target of the gaps between readings reach (a gap of exactly the timeout
// makes the stream idle, hence the +1).
func (s Summary) Recommend(target PPM) Recommendation {
	var r Recommendation
	r.Bound, r.HasBound = s.Delays.SmallestAbove(target)
	if g, ok := s.Gaps.SmallestAbove(target); ok {
		r.IdleTimeout, r.HasIdleTimeout = g+1, true
	}
	return r
}

// ladder is the round bounds offered as candidates, in ms.
var ladder = []int64{0, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 30_000,
	60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000}

// Candidates are the bounds worth showing for a delay distribution: the round
// values from the largest one not above the median delay up to the first one
// not below the maximum delay, plus extra (the configured and the
// recommended bound), sorted and without repeats.
func Candidates(d Dist, extra ...int64) []int64 {
	out := slices.Clone(extra)
	p50, ok := d.Quantile(Whole / 2)
	if ok {
		top, _ := d.Quantile(Whole)
		for i, b := range ladder {
			if i+1 < len(ladder) && ladder[i+1] <= p50 {
				continue
			}
			out = append(out, b)
			if b >= top {
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
