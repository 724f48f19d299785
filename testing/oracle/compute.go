package oracle

import (
	"math"
	"slices"
	"sort"

	"github.com/edged/edged/windows"
)

// Compute recomputes, from scratch, every window the events fall into and
// each window's aggregates, keyed by window. Events are taken in the given
// (arrival) order, which decides ties for first and last. Session windows
// are found per key by sorting by event time and splitting where the next
// event lies more than the gap after the session's last one (windows that
// touch merge, as in Flink); so for sessions pass the members of one
// session, Sim.Members, when purges may have split it.
func Compute(asg windows.Assigner, aggs *windows.Aggregates, events []Event) map[windows.Ref][]windows.NamedValue {
	groups := map[windows.Ref][]int{}
	if asg.Merging() {
		sessions(asg, events, groups)
	} else {
		var buf []windows.Window
		for i, e := range events {
			buf = asg.Assign(e.TS, buf[:0])
			for _, w := range buf {
				ref := windows.Ref{Key: e.Key, Window: w}
				groups[ref] = append(groups[ref], i)
			}
		}
	}
	out := make(map[windows.Ref][]windows.NamedValue, len(groups))
	for ref, idx := range groups {
		out[ref] = aggregate(aggs, events, idx)
	}
	return out
}

func sessions(asg windows.Assigner, events []Event, groups map[windows.Ref][]int) {
	byKey := map[string][]int{}
	for i, e := range events {
		byKey[e.Key] = append(byKey[e.Key], i)
	}
	for key, idx := range byKey {
		sort.SliceStable(idx, func(a, b int) bool { return events[idx[a]].TS < events[idx[b]].TS })
		var cur []int
		var w windows.Window
		flush := func() {
			if len(cur) > 0 {
				slices.Sort(cur) // back to arrival order
				groups[windows.Ref{Key: key, Window: w}] = cur
			}
		}
		for _, i := range idx {
			own := asg.Assign(events[i].TS, nil)[0]
			if len(cur) > 0 && own.Start <= w.End {
				w.End = max(w.End, own.End)
				cur = append(cur, i)
				continue
			}
			flush()
			cur, w = []int{i}, own
		}
		flush()
	}
}

// distinctKey identifies a value as the operator hashes it: numbers by
// their float64 bits, strings by their bytes.
type distinctKey struct {
	kind windows.ValueKind
	bits uint64
	str  string
}

// aggregate computes each aggregate over events[idx...] directly.
func aggregate(aggs *windows.Aggregates, events []Event, idx []int) []windows.NamedValue {
	fields := aggs.Fields()
	out := make([]windows.NamedValue, 0, len(aggs.Names()))
	for _, s := range aggs.Specs() {
		f := slices.Index(fields, s.Field)
		var xs []float64 // numbers of field f in arrival order
		var tss []int64
		distinct := map[distinctKey]bool{}
		for _, i := range idx {
			if f < 0 || f >= len(events[i].Values) {
				continue
			}
			v := events[i].Values[f]
			switch v.Kind {
			case windows.Number:
				if math.IsNaN(v.Num) {
					continue
				}
				xs = append(xs, v.Num)
				tss = append(tss, events[i].TS)
				distinct[distinctKey{kind: windows.Number, bits: math.Float64bits(v.Num)}] = true
			case windows.String:
				distinct[distinctKey{kind: windows.String, str: v.Str}] = true
			}
		}
		out = append(out, windows.NamedValue{Name: s.Name, Value: value(s, len(idx), xs, tss, len(distinct))})
	}
	return out
}

func value(s windows.Spec, records int, xs []float64, tss []int64, distinct int) float64 {
	switch s.Func {
	case "count":
		return float64(records)
	case "distinct":
		return float64(distinct)
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	switch s.Func {
	case "sum":
		return sum(xs)
	case "avg":
		return sum(xs) / float64(len(xs))
	case "min":
		return slices.Min(xs)
	case "max":
		return slices.Max(xs)
	case "first", "last":
		best := 0
		for i := range xs {
			if (s.Func == "first" && tss[i] < tss[best]) || (s.Func == "last" && tss[i] >= tss[best]) {
				best = i
			}
		}
		return xs[best]
	case "variance":
		return variance(xs)
	case "stddev":
		return math.Sqrt(variance(xs))
	case "quantile":
		return exactQuantile(xs, s.Quantile)
	}
	panic("oracle: unknown aggregate function " + s.Func)
}

func sum(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t
}

// variance is the two-pass population variance.
func variance(xs []float64) float64 {
	mean := sum(xs) / float64(len(xs))
	var m2 float64
	for _, x := range xs {
		m2 += (x - mean) * (x - mean)
	}
	return m2 / float64(len(xs))
}

// exactQuantile picks the element DDSketch's rank rule picks, rank =
// q*(n-1): among positives (and zeros) the element at floor(rank), among
// negatives, whose store is ordered by magnitude, the one at
// neg-1-floor(neg-1-rank) (ranks clamp at 0, as in the sketch's store); so the sketch's answer is within its
// relative accuracy of this value.
func exactQuantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := float64(len(s))
	rank := float64(q * (n - 1))
	neg := float64(sort.SearchFloat64s(s, 0))
	zeros := float64(sort.Search(len(s), func(i int) bool { return s[i] > 0 })) - neg
	switch {
	case rank < neg:
		return s[int(neg-1)-int(max(0, math.Floor(neg-1-rank)))]
	case rank < neg+zeros:
		return 0
	default:
		i := int(neg+zeros) + int(math.Floor(rank-zeros-neg))
		return s[min(i, len(s)-1)]
	}
}
