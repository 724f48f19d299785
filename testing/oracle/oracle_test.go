package oracle

import (
	"math"
	"slices"
	"testing"

	"github.com/edged/edged/windows"
)

func TestGenerateIsDeterministicAndStaysWithinItsBounds(t *testing.T) {
	cfg := Config{Seed: 42, Keys: 3, Events: 500, Start: -100, Step: 3, Disorder: 20, LateFraction: 0.2, LateBy: 50,
		Fields: []Field{{Kind: windows.Number, Min: -2, Max: 2}, {Kind: windows.String, Cardinality: 4, MissingFraction: 0.5}}}
	a, b := Generate(cfg), Generate(cfg)
	if len(a) != 500 {
		t.Fatalf("%d events, want 500", len(a))
	}
	late := 0
	clockMax := int64(math.MinInt64)
	for i := range a {
		if a[i].Key != b[i].Key || a[i].TS != b[i].TS || !slices.Equal(a[i].Values, b[i].Values) {
			t.Fatalf("event %d differs between runs: %+v vs %+v", i, a[i], b[i])
		}
		if v := a[i].Values[0]; v.Kind != windows.Number || v.Num < -2 || v.Num > 2 || v.Num*4 != math.Trunc(v.Num*4) {
			t.Fatalf("event %d has value %+v outside [-2, 2] or not a multiple of 1/4", i, v)
		}
		if a[i].TS < clockMax-cfg.Disorder {
			late++
		}
		clockMax = max(clockMax, a[i].TS)
	}
	if late == 0 {
		t.Error("no event lies beyond the disorder bound despite LateFraction 0.2")
	}
}

func TestComputeRecomputesWindowsFromScratch(t *testing.T) {
	aggs, err := windows.ParseAggregates([]string{"count", "sum(v)", "first(v)", "last(v)", "p50(v)", "distinct(v)"})
	if err != nil {
		t.Fatal(err)
	}
	e := func(key string, ts int64, v float64) Event {
		return Event{Key: key, TS: ts, Values: []windows.Value{windows.NumberValue(v)}}
	}
	events := []Event{e("a", 1, 5), e("a", 12, 1), e("a", 3, 2), e("b", 3, 7), e("a", 3, 4), e("a", 30, 9)}
	ref := func(key string, s, end int64) windows.Ref {
		return windows.Ref{Key: key, Window: windows.Window{Start: s, End: end}}
	}
	nv := func(vals ...float64) []windows.NamedValue {
		out := make([]windows.NamedValue, len(vals))
		for i, v := range vals {
			out[i] = windows.NamedValue{Name: aggs.Names()[i], Value: v}
		}
		return out
	}
	tests := []struct {
		name string
		asg  windows.Assigner
		want map[windows.Ref][]windows.NamedValue
	}{{
		name: "tumbling",
		asg:  windows.Tumbling(10, 0),
		want: map[windows.Ref][]windows.NamedValue{
			ref("a", 0, 10):  nv(3, 11, 5, 4, 4, 3),
			ref("a", 10, 20): nv(1, 1, 1, 1, 1, 1),
			ref("a", 30, 40): nv(1, 9, 9, 9, 9, 1),
			ref("b", 0, 10):  nv(1, 7, 7, 7, 7, 1),
		},
	}, {
		name: "sessions split where the next event is more than the gap away and merge where windows touch",
		asg:  windows.Session(9),
		want: map[windows.Ref][]windows.NamedValue{
			ref("a", 1, 21):  nv(4, 12, 5, 1, 2, 4),
			ref("a", 30, 39): nv(1, 9, 9, 9, 9, 1),
			ref("b", 3, 12):  nv(1, 7, 7, 7, 7, 1),
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Compute(tc.asg, aggs, events)
			if len(got) != len(tc.want) {
				t.Fatalf("windows %v, want %v", got, tc.want)
			}
			for r, want := range tc.want {
				if !slices.Equal(got[r], want) {
					t.Errorf("%v: %v, want %v", r, got[r], want)
				}
			}
		})
	}
}

func TestExactQuantileFollowsTheSketchRankRule(t *testing.T) {
	tests := []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{1, 3, 4, 7}, 0.5, 3},
		{[]float64{1, 3, 4, 7}, 0.99, 4},
		{[]float64{1, 3, 4, 7}, 1, 7},
		{[]float64{-9, -8, 1, 2}, 0.5, -8},
		{[]float64{-9, -8, 1, 2}, 0.2, -8}, // the negative store counts from the magnitude side
		{[]float64{-9, -8, 1, 2}, 0, -9},
		{[]float64{-9, -8, 0, 0, 2}, 0.6, 0},
	}
	for _, tc := range tests {
		if got := exactQuantile(tc.xs, tc.q); got != tc.want {
			t.Errorf("quantile %v of %v = %v, want %v", tc.q, tc.xs, got, tc.want)
		}
	}
}

func TestSimClassifiesRecordsByTheLatenessRules(t *testing.T) {
	sim := NewSim(windows.Tumbling(10, 0), 5)
	at := func(ts int64) Event { return Event{Key: "k", TS: ts} }
	if v := sim.Offer(at(3)); v != windows.Applied {
		t.Fatalf("first record: %v", v)
	}
	sim.Advance(12)
	if v := sim.Offer(at(4)); v != windows.Applied {
		t.Errorf("record within lateness: %v, want applied", v)
	}
	sim.Advance(14)
	if v := sim.Offer(at(5)); v != windows.LateOutput {
		t.Errorf("record past cleanup: %v, want late_output", v)
	}
	if got := sim.Members(windows.Ref{Key: "k", Window: windows.Window{Start: 0, End: 10}}); len(got) != 2 {
		t.Errorf("members %v, want the two accepted records", got)
	}
	hop := NewSim(windows.Sliding(5, 10, 0), 0)
	if v := hop.Offer(at(7)); v != windows.Dropped {
		t.Errorf("record in a hopping gap: %v, want dropped", v)
	}
}

func TestSimMergesLateRecordsThatBridgeIntoALiveSession(t *testing.T) {
	sim := NewSim(windows.Session(10), 0)
	at := func(ts int64) Event { return Event{Key: "k", TS: ts} }
	ref := func(s, e int64) windows.Ref { return windows.Ref{Key: "k", Window: windows.Window{Start: s, End: e}} }
	sim.Offer(at(0))
	sim.Advance(9) // [0, 10) fires and is purged
	if v := sim.Offer(at(5)); v != windows.Applied {
		t.Fatalf("a record whose own session is live: %v", v)
	}
	if v := sim.Offer(at(0)); v != windows.Applied {
		t.Errorf("a late record bridging into [5, 15): %v, want applied, as in Flink", v)
	}
	if got := sim.Final(); len(got) != 2 || len(got[ref(0, 10)]) != 1 || len(got[ref(0, 15)]) != 2 {
		t.Errorf("final %v, want the purged [0, 10) and the live [0, 15)", got)
	}
	sim.Advance(14) // [0, 15) fires under the purged session's start and replaces it
	if got := sim.Final(); len(got) != 1 || len(got[ref(0, 15)]) != 2 {
		t.Errorf("final %v, want [0, 15) alone, one row per start", got)
	}

	// A chain: [95, 105) opened at watermark 100 reaches back to 100 - 20 + 2.
	sim = NewSim(windows.Session(10), 0)
	sim.Advance(100)
	for _, c := range []struct {
		ts   int64
		want windows.Verdict
	}{{95, windows.Applied}, {87, windows.Applied}, {80, windows.LateOutput}, {83, windows.Applied}, {60, windows.LateOutput}} {
		if v := sim.Offer(at(c.ts)); v != c.want {
			t.Errorf("record at %d: %v, want %v", c.ts, v, c.want)
		}
	}
}

func TestEqualAppliesEachAggregatesTolerance(t *testing.T) {
	aggs, err := windows.ParseAggregates([]string{"sum(v)", "avg(v)", "p95(v)", "distinct(v)"})
	if err != nil {
		t.Fatal(err)
	}
	vals := func(sum, avg, p, d float64) []windows.NamedValue {
		return []windows.NamedValue{{Name: "sum_v", Value: sum}, {Name: "avg_v", Value: avg}, {Name: "p95_v", Value: p}, {Name: "distinct_v", Value: d}}
	}
	want := vals(10, 2.5, 100, 1000)
	if err := Equal(vals(10, 2.5+1e-12, 100.9, 1020), want, aggs); err != nil {
		t.Errorf("values within tolerance rejected: %v", err)
	}
	if err := Equal(vals(10.000001, 2.6, 102, 1100), want, aggs); err == nil {
		t.Error("values outside every tolerance accepted")
	}
	if err := Equal(vals(math.NaN(), math.NaN(), math.NaN(), 0), vals(math.NaN(), math.NaN(), math.NaN(), 0), aggs); err != nil {
		t.Errorf("NaN against NaN rejected: %v", err)
	}
}
