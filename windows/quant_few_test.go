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
		if got, w := appendQuantileSketch(nil, s), appendQuantileSketch(nil, want); !bytes.Equal(got, w) {
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
		if got, w := appendQuantileSketch(nil, a.view()), appendQuantileSketch(nil, wa); !bytes.Equal(got, w) {
			t.Fatalf("%d values each: encoded %x, want %x", n, got, w)
		}
	}
}
