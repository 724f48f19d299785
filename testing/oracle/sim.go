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
	// final holds members by window: for sessions, those past cleanup;
	// otherwise every window a record was accepted into.
	final   map[windows.Ref][]int
	emitted map[emission]bool // contributions discarding windows already fired
}

type simSession struct {
	w       windows.Window
	members []int // indices into Sim.accepted, ascending
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
// of e is not past cleanup (for sessions: the window e merges into, if e does
// not move its start while past its own cleanup), else
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
	merged := &simSession{w: own}
	var rest []*simSession
	joined := int64(math.MaxInt64) // the earliest start among the sessions e touches
	for _, ss := range s.sessions[e.Key] {
		if ss.w.Start > own.End || ss.w.End < own.Start {
			rest = append(rest, ss)
			continue
		}
		joined = min(joined, ss.w.Start)
		merged.w.Start = min(merged.w.Start, ss.w.Start)
		merged.w.End = max(merged.w.End, ss.w.End)
		merged.members = append(merged.members, ss.members...)
	}
	// A record past its own cleanup may join live sessions but not move
	// their start: a purged session may have emitted under it.
	if s.cleanup(own) <= s.wm && own.Start < joined {
		return false
	}
	slices.Sort(merged.members)
	merged.members = append(merged.members, len(s.accepted)) // Offer appends e next
	s.sessions[e.Key] = append(rest, merged)
	return true
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
// record landed next to it stays apart from the one that record opened.
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
