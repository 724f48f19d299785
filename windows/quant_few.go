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
type quantSketch struct {
	s   *ddsketch.DDSketch // nil while the values are in few
	few []float64
}

func (q *quantSketch) add(x float64) {
	if q.s == nil && len(q.few) < quantFew {
		q.few = append(q.few, x)
		return
	}
	addQuantile(q.sketch(), x)
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
	s := o.view()
	// Both sketches share one mapping, so MergeWith cannot fail.
	_ = q.sketch().MergeWith(s)
	o.release(s)
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
