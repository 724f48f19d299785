package oracle

import "github.com/edged/edged/windows"

// emission names a record's contribution to one window's results: for
// sessions the record alone (it belongs to one session at a time, and keeps
// its mark through merges), otherwise the record in that window.
type emission struct {
	idx int
	ref windows.Ref
}

// Pending returns the members of ref's window (as Members) that no result
// carried yet: what a discarding window's next firing must aggregate.
func (s *Sim) Pending(ref windows.Ref) []Event {
	var out []Event
	for _, i := range s.memberIdx(ref) {
		if !s.emitted[s.emission(i, ref)] {
			out = append(out, s.accepted[i])
		}
	}
	return out
}

// Values aggregates events as one group, whatever windows they would form:
// for a discarding session's firing, whose pending records alone may span
// less than the session.
func Values(aggs *windows.Aggregates, events []Event) []windows.NamedValue {
	idx := make([]int, len(events))
	for i := range idx {
		idx[i] = i
	}
	return aggregate(aggs, events, idx)
}

// Fired records that ref's window fired in discarding mode: its current
// members are no longer pending.
func (s *Sim) Fired(ref windows.Ref) {
	for _, i := range s.memberIdx(ref) {
		s.emitted[s.emission(i, ref)] = true
	}
}

func (s *Sim) emission(i int, ref windows.Ref) emission {
	if s.asg.Merging() {
		return emission{idx: i}
	}
	return emission{idx: i, ref: ref}
}

// memberIdx returns the indices into accepted of ref's members.
func (s *Sim) memberIdx(ref windows.Ref) []int {
	if !s.asg.Merging() {
		return s.final[ref]
	}
	for _, ss := range s.sessions[ref.Key] {
		if ss.w == ref.Window {
			return ss.members
		}
	}
	return nil
}
