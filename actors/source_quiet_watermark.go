package actors

import (
	"math"
	"strings"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// A source sends its stream's status to every window actor it feeds each time the
// status changes: five times a second for a stream whose watermark moves, a message
// and a mailbox turn per window actor, which then takes part in the next flush. For
// a stream that went idle in advance mode the watermark moves at every check, so a
// gateway with thousands of quiet sensors would spend a large share of a core on it
// doing nothing.
//
// Most of those sends change nothing a window actor does. It acts on its watermark
// only where a window's timer is due (a firing at End-1, a cleanup at
// End-1+lateness), and for tumbling and sliding windows those times lie on a grid
// the stream's plan knows (windows.NextTimer). Between two grid times a window actor
// with the watermark before and one with the watermark after differ in nothing but
// that number, and the number is read only where:
//   - a record is judged and, if late, reports the watermark it met: but the record
//     carries its stream's status, applied first (window.observe);
//   - a firing reports the watermark: on-time firings happen at a grid time, where
//     the status is sent; late updates happen on a record. Early firings happen on
//     the processing clock, so a stream whose windows fire early sends every change.
//
// That holds when a window actor hears from one stream only, so that the record's
// status is all of its watermark (a key fed by several streams takes the minimum
// over them, and the others' statuses would be stale). The plan proves it from the
// config: the key is the concrete topic, or the only wildcard of the topic filter
// is a + at the key's level, or the filter has no wildcard at all. Otherwise, and
// for session windows (their timers depend on their records), every change is sent
// as before. A change of idleness is always sent. A window actor restarted after a
// panic reloads an older watermark from the store: it catches up at its stream's
// next record or grid time, where before it did at the next change.

// timerGrid is where the timers of one window definition can fall.
type timerGrid struct {
	asg      windows.Assigner
	lateness int64
}

// quietGrids returns the timer grids of stream s's windows (indexes into ws) if a
// status change that crosses none of them may go unsent (see above), or nil.
func quietGrids(s *configs.Stream, idx []int, ws []windowPlan) []timerGrid {
	if !soleFeeder(s) {
		return nil
	}
	var grids []timerGrid
	for _, i := range idx {
		op := &ws[i].op
		if op.Assigner.Merging() || op.Early > 0 {
			return nil
		}
		grids = append(grids, timerGrid{op.Assigner, op.AllowedLateness})
	}
	return grids
}

// soleFeeder reports whether every key of stream s comes from one concrete topic.
func soleFeeder(s *configs.Stream) bool {
	switch {
	case !strings.ContainsAny(s.Topic, "+#"):
		return true // one topic
	case s.Key.Field != "":
		return false
	case s.Key.TopicSegment < 0:
		return true // the key is the topic
	}
	levels := strings.Split(s.Topic, "/")
	for i, l := range levels {
		if (l == "+") != (i == s.Key.TopicSegment) || l == "#" {
			return false
		}
	}
	return true
}

// nextTimer returns the earliest time after wm at which a timer of the stream's
// windows may be due.
func (p *streamPlan) nextTimer(wm int64) int64 {
	next := int64(math.MaxInt64)
	for _, g := range p.quiet {
		t, _ := windows.NextTimer(g.asg, g.lateness, wm) // ok: the grids are not merging
		next = min(next, t)
	}
	return next
}

// unheard reports whether status st may go unsent to the window actors: it differs
// from the status last sent to all of them only by a watermark short of their next
// timer.
func (s *source) unheard(st watermark.Status) bool {
	return st.Watermark < s.sentFrom(st.Idle)
}

// sentFrom returns the watermark from which a status with idleness idle is sent.
func (s *source) sentFrom(idle bool) int64 {
	if s.plan.quiet == nil || idle != s.sentIdle {
		return watermark.Min
	}
	return s.nextDue
}

// sent notes st as the status every window actor fed now has.
func (s *source) sent(st watermark.Status) {
	if s.plan.quiet != nil {
		s.sentIdle, s.nextDue = st.Idle, s.plan.nextTimer(st.Watermark)
	}
}
