package watermark

import "math"

// A stream that hears nothing changes only at its periodic checks, and only in
// two ways: a check may declare it idle, and an idle stream in Advance mode
// moves its watermark with processing time. The owner of a quiet stream can
// ask when either will happen and skip the checks in between: every one of
// them would leave the generator as the next one finds it.

// Drift is how a generator's watermark moves with processing time alone, until
// its next record or mark.
type Drift struct {
	wm, base, baseAt int64
	advancing        bool
}

// Drift returns how the watermark moves from the generator's current state.
func (g *Generator) Drift() Drift {
	return Drift{wm: g.wm, base: g.base, baseAt: g.baseAt, advancing: g.idle && g.cfg.IdleMode == Advance && g.base != Min}
}

// Advancing reports whether the watermark moves with processing time.
func (d Drift) Advancing() bool { return d.advancing }

// At returns the watermark a check at processing time now would report.
func (d Drift) At(now int64) int64 {
	if !d.advancing {
		return d.wm
	}
	return max(d.wm, AddSat(d.base, elapsed(now, d.baseAt)))
}

// Reaches returns the earliest processing time at which the watermark is at
// least wm: math.MinInt64 if it already is, math.MaxInt64 if it never will.
func (d Drift) Reaches(wm int64) int64 {
	switch {
	case d.wm >= wm:
		return math.MinInt64
	case !d.advancing:
		return math.MaxInt64
	}
	// wm > d.wm >= base: the difference is positive unless it overflowed.
	gap := wm - d.base
	if gap <= 0 {
		return math.MaxInt64
	}
	return AddSat(d.baseAt, gap)
}

// NextIdleChange returns the earliest processing time at which a periodic
// check may change the generator's idleness or its countdown, if no record
// arrives before: math.MinInt64 when the next check does (it stops or starts
// the countdown), math.MaxInt64 when none will (no idle timeout, or already
// idle, which only a record ends).
func (g *Generator) NextIdleChange() int64 {
	switch {
	case g.cfg.IdleTimeout == 0 || g.idle:
		return math.MaxInt64
	case g.active || !g.counting:
		return math.MinInt64
	}
	return AddSat(AddSat(g.quietFrom, g.cfg.IdleTimeout), 1)
}
