package actors

import (
	"sync/atomic"

	"github.com/edged/edged/windows"
)

// /status shows, per window definition, its oldest open window and its next firing.
// Each window actor publishes its own two (keySummary) when they change, which is
// when a window opens, fires or goes, never for a record that only adds to a
// window; the pipeline takes the least over its live keys when /status asks. A
// passivated key holds no window, and its keyRef goes with it.
//
// The summary is an immutable value behind a pointer in the key's keyRef, so a
// reader never sees half of one. Keys of one definition mostly hold the same
// windows (tumbling ones all do), so a definition keeps its last few summaries and
// a key whose summary equals one of them points to it: an idle key costs a pointer
// in its keyRef and one in its window actor, each in what their size class leaves.

// keySummary is a key's oldest open window and, of those not fired yet, the one
// that ends first; a zero Window where there is none.
type keySummary struct{ oldest, next windows.Window }

// sharedSummaries is how many recent summaries a window definition offers to share.
const sharedSummaries = 4

// share returns a summary equal to s: a recent one of the definition's, or s,
// which becomes one. Window actors of a definition call it from their own
// goroutines; two that race may each keep their own copy, which costs only memory.
func (d *windowDef) share(s keySummary) *keySummary {
	for i := range d.recent {
		if r := d.recent[i].Load(); r != nil && *r == s {
			return r
		}
	}
	p := &s
	d.recent[d.turn.Add(1)%sharedSummaries].Store(p)
	return p
}

// summarize publishes the key's summary if it changed.
func (w *window) summarize() {
	if w.summary == nil {
		return
	}
	oldest, next := w.op.Earliest(w.key)
	cur := w.summary.Load()
	switch {
	case oldest == (windows.Window{}):
		if cur != nil {
			w.summary.Store(nil)
		}
	case cur == nil || cur.oldest != oldest || cur.next != next:
		w.summary.Store(w.share(keySummary{oldest, next}))
	}
}

// summaryCell is where a window actor publishes its summary: its keyRef's.
type summaryCell = atomic.Pointer[keySummary]
