package watermark

import (
	"fmt"
	"testing"
)

// step is one action on a Generator in a table test, with what it must return.
type step struct {
	op      string // "observe", "mark", "tick", "restart"
	ts, now int64  // ts is the event time (observe) or the mark (mark)
	verdict Verdict
	want    Status
	changed bool
}

func observe(ts, now int64, v Verdict) step { return step{op: "observe", ts: ts, now: now, verdict: v} }
func mark(wm, now int64) step               { return step{op: "mark", ts: wm, now: now} }

// tick expects Tick(now) to return {wm, idle} and changed.
func tick(now, wm int64, idle, changed bool) step {
	return step{op: "tick", now: now, want: Status{Watermark: wm, Idle: idle}, changed: changed}
}

// restart saves the generator's state and restores it into a new generator
// with the same config at processing time now, as a restarted edged does.
func restart(now int64) step { return step{op: "restart", now: now} }

const (
	active = false
	idle   = true
)

// runSteps applies steps to a new generator and fails at the first mismatch.
func runSteps(t testing.TB, cfg Config, steps []step) *Generator {
	t.Helper()
	g := NewGenerator(cfg)
	for i, s := range steps {
		where := fmt.Sprintf("step %d (%s ts=%d now=%d)", i+1, s.op, s.ts, s.now)
		switch s.op {
		case "observe":
			if got := g.Observe(s.ts, s.now); got != s.verdict {
				t.Fatalf("%s: verdict %v, want %v", where, got, s.verdict)
			}
		case "mark":
			g.Mark(s.ts, s.now)
		case "tick":
			got, changed := g.Tick(s.now)
			if got != s.want || changed != s.changed {
				t.Fatalf("%s: Tick = %v changed=%v, want %v changed=%v", where, got, changed, s.want, s.changed)
			}
		case "restart":
			st := g.State()
			g = NewGenerator(cfg)
			g.Restore(st, s.now)
		default:
			t.Fatalf("%s: unknown op", where)
		}
	}
	return g
}
