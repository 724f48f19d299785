package oracle

import (
	"math"
	"slices"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// Sim replays the lateness rules of docs/semantics.md naively, to tell which records
// a correct operator accepts, sends to the late output or drops, and which
// accepted records make up each window. Feed it the same watermarks and
// records, in the same order, as the operator under test.
type Sim struct {
	asg      windows.Assigner
	lateness int64
	wm       int64
	accepted []Event
	sessions map[string][]*simSession // live sessions by key (merging assigners)
	// final holds members by window: for sessions, those past cleanup whose
	// start no later session emitted under; otherwise every window a record
	// was accepted into.
	final   map[windows.Ref][]int
	emitted map[emission]bool // contributions discarding windows already fired
}

type simSession struct {
	w       windows.Window
	members []int // indices into Sim.accepted, ascending
	// reach: the lowest start late records may move the session's start
	// back to (docs/semantics.md, Session merges).
	reach int64
	// emitted: the session fired under its current start.
	emitted bool
}

// NewSim returns a simulation at watermark math.MinInt64.
func NewSim(asg windows.Assigner, allowedLateness int64) *Sim {
	return &Sim{asg: asg, lateness: allowedLateness, wm: math.MinInt64, sessions: map[string][]*simSession{}, final: map[windows.Ref][]int{}, emitted: map[emission]bool{}}
}

// Watermark returns the simulated watermark.
func (s *Sim) Watermark() int64 { return s.wm }

// Advance moves the watermark forward (never back) and forgets sessions past
// their cleanup time, as the operator purges them.
func (s *Sim) Advance(wm int64) {
	if wm <= s.wm {
		return
	}
	s.wm = wm
	for key, list := range s.sessions {
		for _, ss := range list {
			s.fired(key, ss) // those due fire before any is purged
		}
		list = slices.DeleteFunc(list, func(ss *simSession) bool {
			if s.cleanup(ss.w) > wm {
				return false
			}
			s.final[windows.Ref{Key: key, Window: ss.w}] = ss.members
			return true
		})
		if len(list) == 0 {
			delete(s.sessions, key)
		} else {
			s.sessions[key] = list
		}
	}
}

// Offer classifies e at the current watermark: windows.Applied if some window
// of e is not past cleanup (for sessions: the window e merges into, as in
// Flink, unless e would move that session's start below its reach), else
// windows.LateOutput if e.TS+lateness <= watermark, else windows.Dropped.
func (s *Sim) Offer(e Event) windows.Verdict {
	ok := false
	if s.asg.Merging() {
		ok = s.offerSession(e)
	} else {
		for _, w := range s.asg.Assign(e.TS, nil) {
			if s.cleanup(w) > s.wm {
				ok = true
				ref := windows.Ref{Key: e.Key, Window: w}
				s.final[ref] = append(s.final[ref], len(s.accepted))
			}
		}
	}
	switch {
	case ok:
		s.accepted = append(s.accepted, e)
		return windows.Applied
	case watermark.AddSat(e.TS, s.lateness) <= s.wm:
		return windows.LateOutput
	default:
		return windows.Dropped
	}
}

func (s *Sim) offerSession(e Event) bool {
	own := s.asg.Assign(e.TS, nil)[0]
	// Live sessions are disjoint, so the ones touching the record's own
	// window are all the merge can reach.
	gap := own.End - own.Start
	// The lowest start one late record can give a session that opens now:
	// the session starts after wm-gap-lateness+1, the record a gap before.
	reach := watermark.AddSat(watermark.AddSat(watermark.AddSat(s.wm, -gap), -gap), 2-s.lateness)
	merged := &simSession{w: own, reach: reach}
	var rest []*simSession
	joined := int64(math.MaxInt64) // the earliest start among the sessions e touches
	for _, ss := range s.sessions[e.Key] {
		if ss.w.Start > own.End || ss.w.End < own.Start {
			rest = append(rest, ss)
			continue
		}
		if ss.w.Start < joined {
			joined, merged.emitted = ss.w.Start, ss.emitted
		}
		merged.w.Start = min(merged.w.Start, ss.w.Start)
		merged.w.End = max(merged.w.End, ss.w.End)
		merged.reach = min(merged.reach, ss.reach)
		merged.members = append(merged.members, ss.members...)
	}
	switch {
	case joined == math.MaxInt64 && s.cleanup(own) <= s.wm:
		return false // late, and touches no live session
	case own.Start < joined && own.Start < merged.reach:
		return false // a start a chain of late records may not reach
	}
	merged.emitted = merged.emitted && merged.w.Start == joined
	slices.Sort(merged.members)
	merged.members = append(merged.members, len(s.accepted)) // Offer appends e next
	s.sessions[e.Key] = append(rest, merged)
	s.fired(e.Key, merged) // a session whose end passed fires at once
	return true
}

// fired notes that ss fires if the watermark passed its end.
func (s *Sim) fired(key string, ss *simSession) {
	if ss.w.End-1 <= s.wm {
		s.emit(key, ss)
	}
}

// emit notes that ss emitted under its start. A session that took the start of
// one purged before (a late record bridged into it) then replaces that one's
// row: the consumer keeps one per start. Had it moved its start again before,
// the purged session's row would stand.
func (s *Sim) emit(key string, ss *simSession) {
	ss.emitted = true
	for ref := range s.final {
		if ref.Key == key && ref.Window.Start == ss.w.Start {
			delete(s.final, ref)
		}
	}
}

// Early notes an early firing of ref's window, which the simulation cannot
// infer: for sessions, it is what decides whether a session that took a purged
// one's start replaces its row (Final).
func (s *Sim) Early(ref windows.Ref) {
	for _, ss := range s.sessions[ref.Key] {
		if ss.w == ref.Window {
			s.emit(ref.Key, ss)
		}
	}
}

// Accepted returns the accepted records so far, in arrival order.
func (s *Sim) Accepted() []Event { return s.accepted }

// Members returns the accepted records that make up ref's window now, in
// arrival order: for sessions, the members of the live session ref names
// (nil if there is none), else the accepted records of ref.Key inside it.
func (s *Sim) Members(ref windows.Ref) []Event {
	idx := s.memberIdx(ref)
	if idx == nil {
		return nil
	}
	out := make([]Event, len(idx))
	for i, m := range idx {
		out[i] = s.accepted[m]
	}
	return out
}

func (s *Sim) cleanup(w windows.Window) int64 { return watermark.AddSat(w.End-1, s.lateness) }

// Final returns every window that holds accepted records, with its members
// in arrival order: what a downstream table applying the consumer rule
// must hold once everything fired. For sessions these are the sessions as
// they were purged, or are now if still live; a session purged before a
// record landed next to it stays apart from the one that record opened, and
// a session that took the start of one purged before (a late record bridged
// into it) and emitted under it replaces it, as the consumer's row for that
// start does. Call Early for early firings, which the simulation cannot infer.
func (s *Sim) Final() map[windows.Ref][]Event {
	out := map[windows.Ref][]Event{}
	pick := func(idx []int) []Event {
		evs := make([]Event, len(idx))
		for i, m := range idx {
			evs[i] = s.accepted[m]
		}
		return evs
	}
	for ref, idx := range s.final {
		out[ref] = pick(idx)
	}
	for key, list := range s.sessions {
		for _, ss := range list {
			out[windows.Ref{Key: key, Window: ss.w}] = pick(ss.members)
		}
	}
	return out
}
