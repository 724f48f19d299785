package windows

import (
	"sync"

	"github.com/DataDog/sketches-go/ddsketch"
)

// quantFew is how many values a quantile sketch holds as they came before it
// becomes a DDSketch: a sketch's first bins take 512 bytes and its two stores and
// itself 224 more, while most windows of an idle sensor hold a value or two.
const quantFew = 8

// quantSketch is a window's quantile sketch of one field. It holds its first values
// in few, and is a DDSketch (s) from the quantFew+1th value on, or once merged
// or decoded. A store's state depends only on the values added and their order, so
// a sketch built from few, in order, is the one adding them as they came would
// have built: results and encodings are the same either way.
//
// lo and hi are the exact least and greatest value q took (once bounded), and
// every quantile q reports is clamped into them: a bin's representative is
// within 1 % of its values but may lie outside them, and a p95 below the
// window's min reads as a bug. Clamping only moves a quantile towards the
// exact one, so the sketch's accuracy holds, and min and max merge exactly.
// State decoded from before the bounds existed holds lo = -Inf, hi = +Inf
// unless the window's own min and max of the field tell them.
type quantSketch struct {
	s       *ddsketch.DDSketch // nil while the values are in few
	few     []float64
	lo, hi  float64
	bounded bool // q took a value: lo and hi hold
}

func (q *quantSketch) add(x float64) {
	q.bound(x, x)
	if q.s == nil && len(q.few) < quantFew {
		q.few = append(q.few, x)
		return
	}
	addQuantile(q.sketch(), x)
}

// bound widens q's bounds to take in [lo, hi].
func (q *quantSketch) bound(lo, hi float64) {
	if !q.bounded {
		q.lo, q.hi, q.bounded = lo, hi, true
		return
	}
	q.lo, q.hi = min(q.lo, lo), max(q.hi, hi)
}

// clamp is v moved into q's bounds; NaN (an empty sketch) stays NaN.
func (q *quantSketch) clamp(v float64) float64 {
	switch {
	case !q.bounded:
		return v
	case v < q.lo:
		return q.lo
	case v > q.hi:
		return q.hi
	}
	return v
}

// sketch makes q a DDSketch, if it is not one yet, and returns it.
func (q *quantSketch) sketch() *ddsketch.DDSketch {
	if q.s == nil {
		q.s = newQuantileSketch()
		for _, x := range q.few {
			addQuantile(q.s, x)
		}
		q.few = nil
	}
	return q.s
}

// merge folds o into q. It makes q a DDSketch: adding o's values to q's is not
// always what merging their sketches gives, once a store collapses its lowest bins.
func (q *quantSketch) merge(o *quantSketch) {
	if o.bounded {
		q.bound(o.lo, o.hi)
	}
	s := o.view()
	// Both sketches share one mapping, so MergeWith cannot fail.
	_ = q.sketch().MergeWith(s)
	o.release(s)
}

// quantile is the value at quantile p (in [0, 1]) inside q's bounds, or NaN
// if the sketch holds no value.
func (q *quantSketch) quantile(p float64) float64 {
	s := q.view()
	v := quantile(s, p)
	q.release(s)
	return q.clamp(v)
}

// view is q as a DDSketch to read: q's own, or while q holds few values a scratch
// sketch of them, which the caller hands back with release. Encoding a window on
// every commit so costs no sketch of its own.
func (q *quantSketch) view() *ddsketch.DDSketch {
	if q.s != nil {
		return q.s
	}
	s := scratchSketches.Get().(*ddsketch.DDSketch)
	s.Clear() // an emptied sketch fills as a new one does
	for _, x := range q.few {
		addQuantile(s, x)
	}
	return s
}

// release hands back what view returned.
func (q *quantSketch) release(s *ddsketch.DDSketch) {
	if s != q.s {
		scratchSketches.Put(s)
	}
}

var scratchSketches = sync.Pool{New: func() any { return newQuantileSketch() }}
