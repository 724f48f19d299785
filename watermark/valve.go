package watermark

import (
	"slices"
	"strings"
)

// Valve combines the statuses of the streams that fed one window actor, as
// Flink's StatusWatermarkValve does:
//
//   - The output is the minimum over the active, aligned inputs, and it never
//     goes backwards.
//   - An input joins on its first Update; an active joiner is aligned at
//     once, so a stream that starts behind holds the output back instead of
//     having all its records judged late.
//   - An idle input is not aligned: it no longer holds the output back.
//   - An input that becomes active again below the output is not aligned
//     until its watermark reaches the output, so it cannot pull the output
//     back; its records below the output are late, as in Flink.
//   - When every input is idle, the output is idle and its watermark rises to
//     the maximum over all inputs, so a stream in Advance mode still fires its
//     own key's windows while it is quiet.
//
// A Valve is owned by its window actor and is not safe for concurrent use.
type Valve struct {
	inputs []ValveInput // sorted by Input: lookups by binary search, State without sorting
	out    Status
}

// NewValve returns a valve with no inputs; its status is {Min, active}.
func NewValve() *Valve {
	return &Valve{out: Status{Watermark: Min}}
}

// Update records input's status and returns the combined status and whether
// it changed. An input's watermark is kept as the highest it reported.
func (v *Valve) Update(input string, s Status) (Status, bool) {
	prev := v.out
	i, found := slices.BinarySearchFunc(v.inputs, input, compareInput)
	if !found {
		v.inputs = slices.Insert(v.inputs, i, ValveInput{Input: input, Watermark: s.Watermark, Idle: s.Idle, Aligned: !s.Idle})
	} else {
		in := &v.inputs[i]
		in.Watermark = max(in.Watermark, s.Watermark)
		in.Idle = s.Idle
		if in.Idle {
			in.Aligned = false
		} else if !in.Aligned && in.Watermark >= v.out.Watermark {
			in.Aligned = true
		}
	}
	v.recompute()
	return v.out, v.out != prev
}

func compareInput(in ValveInput, name string) int { return strings.Compare(in.Input, name) }

// recompute moves the output forward from the inputs; it never moves it back.
func (v *Valve) recompute() {
	if len(v.inputs) == 0 {
		return
	}
	active, aligned := false, false
	lowest, highest := int64(0), Min
	for _, in := range v.inputs {
		highest = max(highest, in.Watermark)
		if in.Idle {
			continue
		}
		active = true
		if in.Aligned && (!aligned || in.Watermark < lowest) {
			lowest, aligned = in.Watermark, true
		}
	}
	if !active {
		v.out = Status{Watermark: max(v.out.Watermark, highest), Idle: true}
		return
	}
	v.out.Idle = false
	if aligned {
		v.out.Watermark = max(v.out.Watermark, lowest)
	}
}

// Inputs returns how many inputs have fed the valve.
func (v *Valve) Inputs() int { return len(v.inputs) }

// Has reports whether input has fed the valve.
func (v *Valve) Has(input string) bool {
	_, found := slices.BinarySearchFunc(v.inputs, input, compareInput)
	return found
}

// Status returns the combined status.
func (v *Valve) Status() Status { return v.out }

// State returns a copy of the inputs, sorted by Input.
func (v *Valve) State() []ValveInput { return slices.Clone(v.inputs) }

// Restore replaces the valve's inputs with ins (duplicates keep the first)
// and derives the output from them.
//
// The output is not persisted, so it is rebuilt: the minimum over the
// active, aligned inputs, or the maximum over all inputs when all are idle.
// That is exact unless an input joined below the output (it is aligned but
// holds the output above its watermark) or every active input is unaligned;
// then the derived output is lower than before the restart (the highest
// active watermark in the second case), never higher. Lower is the safe
// side: it can delay firing, never make an on-time record late, and the
// window operator's own restored watermark keeps it from firing twice.
func (v *Valve) Restore(ins []ValveInput) {
	v.inputs = slices.Clone(ins)
	slices.SortStableFunc(v.inputs, func(a, b ValveInput) int { return strings.Compare(a.Input, b.Input) })
	v.inputs = slices.CompactFunc(v.inputs, func(a, b ValveInput) bool { return a.Input == b.Input })
	v.out = Status{Watermark: Min}
	highestActive := Min
	for i := range v.inputs {
		in := &v.inputs[i]
		if in.Idle {
			in.Aligned = false
			continue
		}
		highestActive = max(highestActive, in.Watermark)
	}
	if !slices.ContainsFunc(v.inputs, func(in ValveInput) bool { return in.Aligned }) {
		v.out.Watermark = highestActive
	}
	v.recompute()
	for i := range v.inputs {
		if in := &v.inputs[i]; !in.Idle && in.Watermark >= v.out.Watermark {
			in.Aligned = true
		}
	}
}
