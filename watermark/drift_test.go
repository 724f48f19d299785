package watermark

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// countdown is the part of a generator that a check may change besides the
// watermark.
type countdown struct {
	idle, active, counting bool
	quietFrom              int64
}

func (g *Generator) countdown() countdown {
	return countdown{g.idle, g.active, g.counting, g.quietFrom}
}

// After any periodic check, a copy of the generator ticked at later times must
// keep its countdown until NextIdleChange and report Drift's watermark at each:
// the promise that lets a quiet source skip those checks.
func TestDriftAndNextIdleChangePredictTheChecksOfAQuietStream(t *testing.T) {
	rapidDefaults(t)
	rapid.Check(t, func(t *rapid.T) {
		randomSteps(t, func(g *Generator, now int64) {
			checkQuietChecks(t, g, now, rapid.Int64Range(1, 700).Draw(t, "interval"))
		})
	})
}

// randomSteps runs records, marks, restarts and checks at random on a generator
// of a random config, calls checked after each check, and returns the generator
// and the time of its last step.
func randomSteps(t *rapid.T, checked func(g *Generator, now int64)) (*Generator, int64) {
	cfg := drawConfig(t)
	g := NewGenerator(cfg)
	now := rapid.Int64Range(0, 1_000_000).Draw(t, "start")
	for range rapid.IntRange(1, 40).Draw(t, "steps") {
		now += rapid.Int64Range(0, 3_000).Draw(t, "dt")
		switch rapid.IntRange(0, 5).Draw(t, "action") {
		case 0, 1:
			g.Observe(rapid.Int64Range(900_000, 1_100_000).Draw(t, "ts"), now)
		case 2:
			g.Mark(rapid.Int64Range(800_000, 1_100_000).Draw(t, "mark"), now)
		case 3:
			st := g.State()
			g = NewGenerator(cfg)
			g.Restore(st, now)
		default:
			g.Tick(now)
			if checked != nil {
				checked(g, now)
			}
		}
	}
	return g, now
}

// checkQuietChecks ticks a copy of g every interval after now, as the pipeline
// would, until the first check at or after g.NextIdleChange.
func checkQuietChecks(t *rapid.T, g *Generator, now, interval int64) {
	due, d, before := g.NextIdleChange(), g.Drift(), g.countdown()
	c := *g
	for at := now + interval; at <= now+40*interval; at += interval {
		st, _ := c.Tick(at)
		if at >= due {
			if c.countdown() == before {
				t.Fatalf("the check at %d, NextIdleChange %d, changed nothing: %+v", at, due, before)
			}
			return
		}
		if c.countdown() != before {
			t.Fatalf("the check at %d changed the countdown %+v to %+v before NextIdleChange %d", at, before, c.countdown(), due)
		}
		if st.Watermark != d.At(at) {
			t.Fatalf("the check at %d reported %d, Drift.At says %d", at, st.Watermark, d.At(at))
		}
	}
}

func TestDriftReachesIsTheFirstTimeAtIsAtLeastTheWatermark(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := rapid.Int64Range(-50, 50).Draw(t, "base")
		d := Drift{
			base:      base,
			wm:        base + rapid.Int64Range(0, 20).Draw(t, "above"),
			baseAt:    rapid.Int64Range(-50, 50).Draw(t, "baseAt"),
			advancing: rapid.Bool().Draw(t, "advancing"),
		}
		wm := rapid.Int64Range(-100, 150).Draw(t, "wm")
		got := d.Reaches(wm)
		want := int64(math.MaxInt64)
		switch {
		case d.At(math.MinInt64) >= wm:
			want = math.MinInt64
		case d.advancing:
			for at := int64(-200); at <= 400; at++ {
				if d.At(at) >= wm {
					want = at
					break
				}
			}
		}
		if got != want {
			t.Fatalf("%+v.Reaches(%d) = %d, want %d", d, wm, got, want)
		}
	})
}

func TestDriftReachesSaturates(t *testing.T) {
	d := Drift{wm: -10, base: math.MinInt64 + 1, baseAt: 5, advancing: true}
	if got := d.Reaches(math.MaxInt64); got != math.MaxInt64 {
		t.Fatalf("Reaches across the whole int64 range = %d, want MaxInt64", got)
	}
	d = Drift{wm: 0, base: 0, baseAt: math.MaxInt64 - 5, advancing: true}
	if got := d.Reaches(10); got != math.MaxInt64 {
		t.Fatalf("Reaches past the end of processing time = %d, want MaxInt64", got)
	}
}

func TestNextIdleChange(t *testing.T) {
	g := NewGenerator(Config{Strategy: Bounded, IdleTimeout: 500})
	if got := g.NextIdleChange(); got != math.MinInt64 {
		t.Fatalf("before the first check: %d, want MinInt64 (the check starts the countdown)", got)
	}
	g.Tick(1_000)
	if got := g.NextIdleChange(); got != 1_501 {
		t.Fatalf("counting since 1000 with a 500 ms timeout: %d, want 1501", got)
	}
	g.Tick(1_501)
	if got := g.NextIdleChange(); got != math.MaxInt64 {
		t.Fatalf("idle: %d, want MaxInt64", got)
	}
	g.Observe(5_000, 1_600)
	if got := g.NextIdleChange(); got != math.MinInt64 {
		t.Fatalf("after a record: %d, want MinInt64 (the check stops the countdown)", got)
	}
	never := NewGenerator(Config{Strategy: Bounded})
	never.Tick(0)
	if got := never.NextIdleChange(); got != math.MaxInt64 {
		t.Fatalf("no idle timeout: %d, want MaxInt64", got)
	}
}

// A saved state drifted to a later time must hold the watermark the generator
// it was saved from reports at a check then, if only checks came: what a
// restart restores for a stream whose saves stopped when it went idle.
func TestADriftedStateHasTheWatermarkOfTheChecksItSkipped(t *testing.T) {
	rapidDefaults(t)
	rapid.Check(t, func(t *rapid.T) {
		g, now := randomSteps(t, nil)
		st := g.State()
		at := now + rapid.Int64Range(0, 100_000).Draw(t, "later")
		c := *g
		wm, _ := c.Tick(at)
		got := st.Drifted(at)
		switch {
		case st.Idle && got.Watermark != wm.Watermark:
			t.Fatalf("idle state %+v drifted to %d has watermark %d, a check then reports %d", st, at, got.Watermark, wm.Watermark)
		case !st.Idle && got != st:
			t.Fatalf("active state %+v drifted to %d became %+v", st, at, got)
		}
	})
}

func TestDriftedSaturatesAndNeverGoesBack(t *testing.T) {
	st := GeneratorState{Watermark: 5_000, Idle: true, Base: 4_000, BaseAt: 100}
	for _, c := range []struct{ at, want int64 }{
		{0, 5_000},     // the clock before BaseAt: nothing elapsed
		{1_100, 5_000}, // base + elapsed below the watermark
		{2_100, 6_000}, // past it
		{math.MaxInt64, math.MaxInt64},
	} {
		if got := st.Drifted(c.at).Watermark; got != c.want {
			t.Errorf("Drifted(%d) = %d, want %d", c.at, got, c.want)
		}
	}
	if held := (GeneratorState{Watermark: 5_000, Idle: true, Base: Min}); held.Drifted(1e9) != held {
		t.Errorf("a state without a base drifted: %+v", held.Drifted(1e9))
	}
}
