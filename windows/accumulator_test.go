package windows

import (
	"encoding/hex"
	"fmt"
	"math"
	"testing"

	"github.com/DataDog/sketches-go/ddsketch"
	"pgregory.net/rapid"
)

var everyAggregate = []string{
	"count", "sum(v)", "min(v)", "max(v)", "avg(v)", "first(v)", "last(v)",
	"variance(v)", "stddev(v)", "p50(v)", "p99(v)", "distinct(s)", "distinct(v)",
}

func mustParse(t testing.TB, specs ...string) *Aggregates {
	t.Helper()
	a, err := ParseAggregates(specs)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func accumulate(a *Aggregates, rs []Record, seq0 int64) accumulator {
	acc := a.newAccumulator()
	for i := range rs {
		acc.add(a, &rs[i], seq0+int64(i))
	}
	return acc
}

func resultMap(a *Aggregates, acc *accumulator) map[string]float64 {
	m := map[string]float64{}
	for _, nv := range acc.results(a, nil) {
		m[nv.Name] = nv.Value
	}
	return m
}

func TestAggregatesComputeExactValues(t *testing.T) {
	a := mustParse(t, everyAggregate...)
	r := func(ts int64, v, s Value) Record { return Record{TS: ts, Values: []Value{v, s}} }
	n, str := NumberValue, StringValue
	tests := []struct {
		name    string
		records []Record
		want    map[string]float64 // NaN means the aggregate saw no value
	}{{
		name: "numbers with ties, missing, string and NaN values",
		records: []Record{
			r(5, n(3), str("a")), r(2, n(1), str("b")), r(2, n(7), str("a")),
			r(9, Value{}, str("c")), r(9, n(4), Value{}), r(9, str("x"), Value{}), r(9, n(math.NaN()), Value{}),
		},
		want: map[string]float64{
			"count": 7, "sum_v": 15, "min_v": 1, "max_v": 7, "avg_v": 3.75,
			"first_v": 1, "last_v": 4, "variance_v": 4.6875, "stddev_v": math.Sqrt(4.6875),
			"p50_v": 3, "p99_v": 4, "distinct_s": 3, "distinct_v": 5,
		},
	}, {
		name:    "a window without numbers is NaN for numeric aggregates and 0 distinct",
		records: []Record{{TS: 1}, {TS: 2, Values: []Value{{}}}},
		want: map[string]float64{
			"count": 2, "sum_v": math.NaN(), "min_v": math.NaN(), "max_v": math.NaN(), "avg_v": math.NaN(),
			"first_v": math.NaN(), "last_v": math.NaN(), "variance_v": math.NaN(), "stddev_v": math.NaN(),
			"p50_v": math.NaN(), "p99_v": math.NaN(), "distinct_s": 0, "distinct_v": 0,
		},
	}, {
		name:    "last keeps the latest arrival among equal event times, first the earliest",
		records: []Record{r(4, n(1), Value{}), r(4, n(2), Value{}), r(3, n(-8), Value{}), r(3, n(-9), Value{})},
		want: map[string]float64{
			"count": 4, "sum_v": -14, "min_v": -9, "max_v": 2, "avg_v": -3.5,
			"first_v": -8, "last_v": 2, "variance_v": 25.25, "stddev_v": math.Sqrt(25.25),
			"p50_v": -8, "p99_v": 1, "distinct_s": 0, "distinct_v": 4,
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			acc := accumulate(a, tc.records, 0)
			got := resultMap(a, &acc)
			for name, want := range tc.want {
				g := got[name]
				ok := g == want || math.IsNaN(g) && math.IsNaN(want)
				switch {
				case math.IsNaN(want):
				case name[0] == 'p':
					// The element at rank q*(n-1), within the sketch's accuracy.
					ok = math.Abs(g-want) <= QuantileAccuracy*math.Abs(want)
				case name[0] == 'v' || name[0] == 's' && name[1] == 't':
					ok = math.Abs(g-want) <= 1e-12*want // Welford rounds
				}
				if !ok {
					t.Errorf("%s = %v, want %v", name, g, want)
				}
			}
		})
	}
}

// drawRecords draws records whose numbers are multiples of 1/4, so sums are
// exact in any order and plain aggregates can be compared exactly.
func drawRecords(t *rapid.T, label string) []Record {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Record {
		r := Record{TS: rapid.Int64Range(-5, 5).Draw(t, "ts")}
		switch rapid.IntRange(0, 5).Draw(t, "v kind") {
		case 0:
			r.Values = append(r.Values, Value{})
		case 1:
			r.Values = append(r.Values, StringValue("x"))
		default:
			r.Values = append(r.Values, NumberValue(float64(rapid.IntRange(-400, 400).Draw(t, "v"))/4))
		}
		r.Values = append(r.Values, StringValue(fmt.Sprint(rapid.IntRange(0, 50).Draw(t, "s"))))
		return r
	}), 0, 60).Draw(t, label)
}

// sameResults compares two accumulators' results: plain aggregates exactly,
// means and variances to 1e-9 relative, sketches to tol relative.
func sameResults(t *rapid.T, a *Aggregates, got, want *accumulator, sketchTol float64) {
	wantVals := want.results(a, nil)
	for i, g := range got.results(a, nil) {
		w := wantVals[i]
		if math.IsNaN(g.Value) || math.IsNaN(w.Value) {
			if math.IsNaN(g.Value) != math.IsNaN(w.Value) {
				t.Fatalf("%s = %v, want %v", g.Name, g.Value, w.Value)
			}
			continue
		}
		tol := 0.0
		switch a.aggs[i].fn {
		case fnAvg, fnVariance, fnStddev:
			tol = 1e-9 * max(math.Abs(w.Value), 1e-3)
		case fnQuantile, fnDistinct:
			tol = sketchTol * math.Abs(w.Value)
		}
		if math.Abs(g.Value-w.Value) > tol {
			t.Fatalf("%s = %v, want %v", g.Name, g.Value, w.Value)
		}
	}
}

func TestMergeOfTwoAccumulatorsEqualsTheAccumulatorOfTheUnion(t *testing.T) {
	a := mustParse(t, everyAggregate...)
	rapid.Check(t, func(t *rapid.T) {
		x, y := drawRecords(t, "x"), drawRecords(t, "y")
		ax := accumulate(a, x, 0)
		ay := accumulate(a, y, int64(len(x)))
		ax.merge(a, &ay)
		all := accumulate(a, append(x, y...), 0)
		sameResults(t, a, &ax, &all, 0.01)
	})
}

func TestEncodingRoundTripsEveryAggregate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		specs := rapid.SliceOfNDistinct(rapid.SampledFrom(everyAggregate), 1, len(everyAggregate), func(s string) string { return s }).Draw(t, "aggregates")
		a, err := ParseAggregates(specs)
		if err != nil {
			t.Fatal(err)
		}
		rs := drawRecords(t, "records")
		acc := accumulate(a, rs, 0)
		enc := acc.appendBinary(a, []byte("prefix"))[len("prefix"):]
		if enc[0] != accumulatorVersion {
			t.Fatalf("encoding starts with %d, not the version byte", enc[0])
		}
		r := reader{b: enc}
		dec, err := a.decodeAccumulator(&r)
		if err != nil {
			t.Fatalf("decoding %x: %v", enc, err)
		}
		if len(r.b) != 0 {
			t.Fatalf("%d bytes left after decoding", len(r.b))
		}
		sameResults(t, a, &dec, &acc, 0)
		// The decoded state keeps working: add the same records to both.
		more := drawRecords(t, "more")
		for i := range more {
			acc.add(a, &more[i], int64(len(rs)+i))
			dec.add(a, &more[i], int64(len(rs)+i))
		}
		sameResults(t, a, &dec, &acc, 0)
	})
}

func TestDecodingStateOfOtherAggregatesFails(t *testing.T) {
	a := mustParse(t, "count", "avg(v)")
	acc := accumulate(a, []Record{{TS: 1, Values: []Value{NumberValue(2)}}}, 0)
	enc := acc.appendBinary(a, nil)
	for _, specs := range [][]string{{"count"}, {"count", "max(v)"}, {"count", "avg(v)", "p50(v)"}} {
		r := reader{b: enc}
		if _, err := mustParse(t, specs...).decodeAccumulator(&r); err == nil {
			t.Errorf("state of [count avg(v)] decoded as %v", specs)
		}
	}
}

// State written before quantile sketches kept their bounds (quantile sketch
// encoding version 1, these bytes) still decodes. A sketch with values takes
// its bounds from the window's own min and max of the field where they are
// configured and is unbounded otherwise; an empty one bounds what comes next.
func TestQuantileSketchesOfVersionOneDecode(t *testing.T) {
	withExtremes := mustParse(t, "count", "min(v)", "max(v)", "p50(v)", "p95(v)")
	withoutExtremes := mustParse(t, "count", "p50(v)")
	tests := []struct {
		name   string
		a      *Aggregates
		hex    string
		more   []float64 // added after decoding
		want   map[string]float64
		lo, hi float64 // bounds after more
	}{{
		name: "22, 22, 22.2 with min and max",
		a:    withExtremes,
		hex:  "0105010303030000000000003640040333333333333336400a0a01010001b402030000",
		want: map[string]float64{"count": 3, "min_v": 22, "max_v": 22.2, "p50_v": 22, "p95_v": 22},
		lo:   22, hi: 22.2,
	}, {
		name: "22, 22, 22.2 with min and max, then 21.9",
		a:    withExtremes,
		hex:  "0105010303030000000000003640040333333333333336400a0a01010001b402030000",
		more: []float64{21.9},
		want: map[string]float64{"count": 4, "min_v": 21.9, "max_v": 22.2, "p50_v": 21.97824287264915, "p95_v": 21.97824287264915},
		lo:   21.9, hi: 22.2,
	}, {
		name: "an empty window, then 22",
		a:    withExtremes,
		hex:  "01050100030004000a0a010100000000",
		more: []float64{22},
		want: map[string]float64{"count": 1, "min_v": 22, "max_v": 22, "p50_v": 22, "p95_v": 22},
		lo:   22, hi: 22,
	}, {
		name: "22, 22, 22 without min and max: unbounded, as when it was written",
		a:    withoutExtremes,
		hex:  "010201030a01010001b402030000",
		want: map[string]float64{"count": 3, "p50_v": 21.97824287264915},
		lo:   math.Inf(-1), hi: math.Inf(1),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := hex.DecodeString(tc.hex)
			if err != nil {
				t.Fatal(err)
			}
			r := reader{b: b}
			acc, err := tc.a.decodeAccumulator(&r)
			if err != nil || len(r.b) > 0 {
				t.Fatalf("decoding: %v (%d bytes left)", err, len(r.b))
			}
			for i, x := range tc.more {
				acc.add(tc.a, &Record{TS: int64(i), Values: []Value{NumberValue(x)}}, acc.maxSeq()+1)
			}
			got := resultMap(tc.a, &acc)
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s = %v, want %v", name, got[name], want)
				}
			}
			if q := acc.quant[0]; !q.bounded || q.lo != tc.lo || q.hi != tc.hi {
				t.Errorf("bounds [%v, %v] (bounded %v), want [%v, %v]", q.lo, q.hi, q.bounded, tc.lo, tc.hi)
			}
		})
	}
}

func TestDecodingQuantileSketchesWithBadBoundsFails(t *testing.T) {
	bins := appendSketchBins(nil, func() *ddsketch.DDSketch { s := newQuantileSketch(); _ = s.Add(3); return s }())
	bounds := func(lo, hi float64) []byte { return appendFloat(appendFloat([]byte{quantileVersion, 1}, lo), hi) }
	for name, enc := range map[string][]byte{
		"a flag that is neither 0 nor 1": append([]byte{quantileVersion, 2}, bins...),
		"values without bounds":          append([]byte{quantileVersion, 0}, bins...),
		"min above max":                  append(bounds(4, 2), bins...),
		"a NaN bound":                    append(bounds(math.NaN(), 3), bins...),
		"version 3":                      append([]byte{3, 0}, bins...),
		"bounds cut short":               bounds(1, 2)[:10],
	} {
		r := reader{b: enc}
		if _, _ = decodeQuantSketch(&r); r.err == nil {
			t.Errorf("%s: %x decoded", name, enc)
		}
	}
}
