package tune

import "github.com/edged/edged/watermark"

// Stream collects what one concrete stream's readings say about its disorder
// and its gaps. Readings are judged by a watermark generator with the stream's
// configuration, so a reading the skew guard would reject (Future) moves
// nothing here either.
type Stream struct {
	gen      *watermark.Generator
	seen     bool
	max      int64 // highest accepted event time
	lastAt   int64 // processing time of the last accepted reading
	future   int
	delays   []int64
	gaps     []int64
	advances []advance
}

// advance is a rise of the stream's max event time, and when it happened.
type advance struct{ max, at int64 }

// NewStream returns a Stream judged with cfg. Only the skew guard of cfg
// matters: delays do not depend on the bound.
func NewStream(cfg watermark.Config) *Stream {
	return &Stream{gen: watermark.NewGenerator(cfg)}
}

// Observe reports a reading with event time ts arriving at processing time
// at. Processing times must not go back (a recording's never do).
func (s *Stream) Observe(ts, at int64) {
	if s.gen.Observe(ts, at) == watermark.Future {
		s.future++
		return
	}
	if s.seen {
		s.gaps = append(s.gaps, at-s.lastAt)
	}
	if !s.seen || ts > s.max {
		s.max = ts
		s.advances = append(s.advances, advance{ts, at})
	}
	s.delays = append(s.delays, Delay(s.max, ts))
	s.seen, s.lastAt = true, at
}

// Readings is the number of readings accepted.
func (s *Stream) Readings() int { return len(s.delays) }

// Future is the number of readings the skew guard rejected.
func (s *Stream) Future() int { return s.future }

// Delays are the accepted readings' delays behind the max event time before
// them, in arrival order; the first reading's is 0.
func (s *Stream) Delays() []int64 { return s.delays }

// Gaps are the processing times between consecutive accepted readings.
func (s *Stream) Gaps() []int64 { return s.gaps }

// ExtraLatency is what a bound b costs in result latency, sampled once per
// rise of the max event time: when the max first reached m at processing
// time t, the watermark with bound 0 had passed m - 1, and the one with bound
// b passes it when the max first reaches m + b, at t'. The sample is t' - t.
// Rises after which the max never reached m + b in the recording give no
// sample.
func (s *Stream) ExtraLatency(b int64) []int64 {
	var out []int64
	j := 0
	for _, a := range s.advances {
		for j < len(s.advances) && s.advances[j].max < watermark.AddSat(a.max, b) {
			j++
		}
		if j == len(s.advances) {
			break
		}
		out = append(out, s.advances[j].at-a.at)
	}
	return out
}
