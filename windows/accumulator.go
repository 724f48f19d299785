package windows

import (
	"math"

	"github.com/axiomhq/hyperloglog"
)

// slot is the flat state of one plain aggregate, so that adding a record to
// count/sum/min/max/avg touches a slice of structs and allocates nothing.
//
//	count:            n = records
//	sum, avg:         n = numbers, a = sum
//	min, max:         n = numbers, a = extreme
//	first, last:      n = numbers, a = value, ts/seq = its event time and arrival
//	variance, stddev: n = numbers, a = mean, b = M2 (Welford)
type slot struct {
	n       int64
	a, b    float64
	ts, seq int64
}

// accumulator is the state of one window. There is a quantile sketch per field
// however many pNN of that field are configured; distinct sketches live behind
// pointers, one per field.
type accumulator struct {
	slots []slot
	quant []quantSketch
	dist  []*hyperloglog.Sketch
}

func (a *Aggregates) newAccumulator() accumulator {
	acc := accumulator{slots: make([]slot, len(a.aggs))}
	if len(a.quantFields) > 0 {
		acc.quant = make([]quantSketch, len(a.quantFields))
	}
	if len(a.distFields) > 0 {
		acc.dist = make([]*hyperloglog.Sketch, len(a.distFields))
		for i := range acc.dist {
			acc.dist[i] = hyperloglog.New14()
		}
	}
	return acc
}

// number returns the numeric value of field i of r, if it has one.
func number(r *Record, i int) (float64, bool) {
	if i >= len(r.Values) {
		return 0, false
	}
	v := &r.Values[i]
	if v.Kind != Number || math.IsNaN(v.Num) {
		return 0, false
	}
	return v.Num, true
}

// add folds r into the accumulator; seq is the record's arrival number, which
// breaks event-time ties for first and last.
func (acc *accumulator) add(a *Aggregates, r *Record, seq int64) {
	for i := range a.aggs {
		ag := &a.aggs[i]
		s := &acc.slots[i]
		if ag.fn == fnCount {
			s.n++
			continue
		}
		x, ok := number(r, ag.field)
		if !ok {
			continue
		}
		switch ag.fn {
		case fnSum, fnAvg:
			s.n++
			s.a += x
		case fnMin:
			if s.n == 0 || x < s.a {
				s.a = x
			}
			s.n++
		case fnMax:
			if s.n == 0 || x > s.a {
				s.a = x
			}
			s.n++
		case fnFirst:
			if s.n == 0 || r.TS < s.ts {
				s.a, s.ts, s.seq = x, r.TS, seq
			}
			s.n++
		case fnLast:
			if s.n == 0 || r.TS >= s.ts {
				s.a, s.ts, s.seq = x, r.TS, seq
			}
			s.n++
		case fnVariance, fnStddev:
			s.n++
			d := x - s.a
			s.a += d / float64(s.n)
			// float64(...) keeps arm64 from fusing the product into
			// the sum: results must have the same bits on every machine.
			s.b += float64(d * (x - s.a))
		}
	}
	for i, f := range a.quantFields {
		if x, ok := number(r, f); ok {
			acc.quant[i].add(x)
		}
	}
	for i, f := range a.distFields {
		if f < len(r.Values) {
			addDistinct(acc.dist[i], &r.Values[f])
		}
	}
}

// merge folds o into acc (session windows merging; o is left unchanged).
func (acc *accumulator) merge(a *Aggregates, o *accumulator) {
	for i := range a.aggs {
		s, t := &acc.slots[i], &o.slots[i]
		if t.n == 0 {
			continue
		}
		if s.n == 0 {
			*s = *t
			continue
		}
		switch a.aggs[i].fn {
		case fnSum, fnAvg:
			s.a += t.a
		case fnMin:
			s.a = min(s.a, t.a)
		case fnMax:
			s.a = max(s.a, t.a)
		case fnFirst:
			if t.ts < s.ts || (t.ts == s.ts && t.seq < s.seq) {
				s.a, s.ts, s.seq = t.a, t.ts, t.seq
			}
		case fnLast:
			if t.ts > s.ts || (t.ts == s.ts && t.seq > s.seq) {
				s.a, s.ts, s.seq = t.a, t.ts, t.seq
			}
		case fnVariance, fnStddev:
			// Chan et al.'s parallel combination of Welford states.
			n := float64(s.n + t.n)
			d := t.a - s.a
			// Every product here feeds a division, never a sum, so no
			// FMA can form (see add); .ci/cross checks the arm64 code.
			s.b += t.b + d*d*float64(s.n)*float64(t.n)/n
			s.a += d * float64(t.n) / n
		}
		s.n += t.n
	}
	for i := range acc.quant {
		acc.quant[i].merge(&o.quant[i])
	}
	for i := range acc.dist {
		// Both sketches have precision 14, so Merge cannot fail.
		_ = acc.dist[i].Merge(o.dist[i])
	}
}

// results appends the aggregate values in Names() order. Empty numeric
// aggregates are NaN (the sink writes null); an empty distinct is 0.
func (acc *accumulator) results(a *Aggregates, dst []NamedValue) []NamedValue {
	for i := range a.aggs {
		ag := &a.aggs[i]
		s := &acc.slots[i]
		v := math.NaN()
		switch ag.fn {
		case fnCount:
			v = float64(s.n)
		case fnSum, fnMin, fnMax, fnFirst, fnLast:
			if s.n > 0 {
				v = s.a
			}
		case fnAvg:
			if s.n > 0 {
				v = s.a / float64(s.n)
			}
		case fnVariance:
			if s.n > 0 {
				v = s.b / float64(s.n)
			}
		case fnStddev:
			if s.n > 0 {
				v = math.Sqrt(s.b / float64(s.n))
			}
		case fnQuantile:
			v = acc.quant[ag.sketch].quantile(ag.q)
		case fnDistinct:
			// Estimate rounds to an integer inside hyperloglog, whose float
			// steps (math.Log, a polynomial arm64 fuses) may differ in the
			// last bit between architectures; that changes the integer only when
			// the estimate lies within that bit of a .5 tie: portable in practice.
			v = float64(acc.dist[ag.sketch].Estimate())
		}
		dst = append(dst, NamedValue{Name: ag.spec.Name, Value: v})
	}
	return dst
}

// maxSeq is the latest arrival number the accumulator remembers, so a
// restored operator keeps numbering arrivals after it.
func (acc *accumulator) maxSeq() int64 {
	var m int64
	for i := range acc.slots {
		m = max(m, acc.slots[i].seq)
	}
	return m
}
