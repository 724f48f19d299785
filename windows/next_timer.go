package windows

import "math"

// NextTimer returns the earliest event time after wm at which an operator with
// assigner a and allowed lateness could have a timer due, whatever windows it
// holds: a window's firing (End-1) or its cleanup (End-1+lateness). While the
// watermark stays below it, advancing the operator fires and purges nothing.
// Session windows end where their records put them, so for a merging assigner
// ok is false.
//
// Aligned windows end on a grid, so their timers fall on two residues modulo
// the slide. It may name a time at which no window is due (no window there
// holds state), never one later than the first that is.
func NextTimer(a Assigner, lateness, wm int64) (t int64, ok bool) {
	var period, end int64 // window ends are end modulo period
	switch a := a.(type) {
	case tumbling:
		period, end = a.size, a.offset
	case sliding:
		period, end = a.slide, addMod(a.offset, a.size, a.slide)
	default:
		return 0, false
	}
	// A window at the end of time saturates: it ends at MaxInt64, so it fires at
	// MaxInt64-1 and is cleaned up at MaxInt64, off the grid.
	if wm >= math.MaxInt64-1 {
		return math.MaxInt64, true
	}
	fire := addMod(end, -1, period)
	t = min(after(wm, fire, period), after(wm, addMod(fire, lateness, period), period))
	return min(t, math.MaxInt64-1), true
}

// after returns the smallest time greater than wm that is r modulo p
// (0 <= r < p), or MaxInt64 if there is none.
func after(wm, r, p int64) int64 {
	d := mod(r-mod(wm, p)-1, p) // r and mod(wm, p) are in [0, p): no overflow
	if wm > math.MaxInt64-1-d {
		return math.MaxInt64
	}
	return wm + 1 + d
}

// addMod returns (a+b) mod p in [0, p) for any a and b.
func addMod(a, b, p int64) int64 {
	s := uint64(mod(a, p)) + uint64(mod(b, p)) // < 2p <= 2^64
	return int64(s % uint64(p))
}

// mod returns a mod p in [0, p) for p > 0.
func mod(a, p int64) int64 {
	m := a % p
	if m < 0 {
		m += p
	}
	return m
}
