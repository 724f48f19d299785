package windows

import (
	"bytes"
	"math"
	"testing"
)

// A sketch that holds its first values as they came reads and encodes as the
// DDSketch that took them one by one, before and after it becomes one.
func TestQuantSketchIsTheSketchOfItsValues(t *testing.T) {
	values := []float64{3, -2.5, 0, 1e-320, 1e308, math.Inf(1), 7, 1e-100, 1e100, 42, -1e5, 0.5, 9, 11, 13, 17, 19, 23}
	var q quantSketch
	want := newQuantileSketch()
	for i, x := range values {
		q.add(x)
		addQuantile(want, x)
		s := q.view()
		if got, w := appendSketchBins(nil, s), appendSketchBins(nil, want); !bytes.Equal(got, w) {
			t.Fatalf("after %d values: encoded %x, want %x", i+1, got, w)
		}
		for _, p := range []float64{0, 0.5, 0.95, 1} {
			if got, w := quantile(s, p), quantile(want, p); got != w && !(math.IsNaN(got) && math.IsNaN(w)) {
				t.Fatalf("after %d values: p%v = %v, want %v", i+1, p*100, got, w)
			}
		}
		q.release(s)
		if held := q.s == nil; held != (i < quantFew) {
			t.Fatalf("after %d values: a sketch of its own = %v", i+1, !held)
		}
	}
}

// Merging makes the sketch that merging the two DDSketches makes, whichever holds
// its values as they came.
func TestQuantSketchMerge(t *testing.T) {
	for _, n := range []int{0, 1, quantFew, quantFew + 3} {
		var a, b quantSketch
		wa, wb := newQuantileSketch(), newQuantileSketch()
		for i := range n {
			a.add(float64(i) * 1e90)
			addQuantile(wa, float64(i)*1e90)
			b.add(-float64(i) / 1e90)
			addQuantile(wb, -float64(i)/1e90)
		}
		a.merge(&b)
		_ = wa.MergeWith(wb)
		if got, w := appendSketchBins(nil, a.view()), appendSketchBins(nil, wa); !bytes.Equal(got, w) {
			t.Fatalf("%d values each: encoded %x, want %x", n, got, w)
		}
	}
}

// A sketch's bounds are the exact least and greatest value it took, through
// merges whichever side is empty, and every quantile it reports lies inside them.
func TestQuantSketchBoundsAreExactAndHoldItsQuantiles(t *testing.T) {
	tests := []struct {
		name   string
		a, b   []float64 // b is merged into a; nil merges nothing
		lo, hi float64
	}{
		{"one value", []float64{22}, nil, 22, 22},
		{"values a 1 % bin holds", []float64{22, 22.2, 22, 22.1}, nil, 22, 22.2},
		{"a sketch past its first values", []float64{-3, 22, 22, 22, 22, 22, 22, 22, 22, 22, 1e9}, nil, -3, 1e9},
		{"infinities, which the sketch skips", []float64{math.Inf(1), 5, math.Inf(-1)}, nil, math.Inf(-1), math.Inf(1)},
		{"merged into an empty sketch", nil, []float64{7, 7.01}, 7, 7.01},
		{"an empty sketch merged in", []float64{7, 7.01}, []float64{}, 7, 7.01},
		{"merged", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []float64{-0.5, 0.25}, -0.5, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a quantSketch
			for _, x := range tc.a {
				a.add(x)
			}
			if tc.b != nil {
				var b quantSketch
				for _, x := range tc.b {
					b.add(x)
				}
				a.merge(&b)
			}
			if !a.bounded || a.lo != tc.lo || a.hi != tc.hi {
				t.Fatalf("bounds [%v, %v] (bounded %v), want [%v, %v]", a.lo, a.hi, a.bounded, tc.lo, tc.hi)
			}
			for _, p := range []float64{0, 0.01, 0.5, 0.95, 0.999, 1} {
				if v := a.quantile(p); v < tc.lo || v > tc.hi {
					t.Errorf("p%v = %v lies outside [%v, %v]", p*100, v, tc.lo, tc.hi)
				}
			}
		})
	}
	var empty quantSketch
	if v := empty.quantile(0.5); !math.IsNaN(v) || empty.bounded {
		t.Errorf("an empty sketch reads p50 = %v, bounded %v; want NaN, unbounded", v, empty.bounded)
	}
}
