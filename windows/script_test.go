package windows_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/edged/edged/windows"
)

// step is one input of a scripted operator run: a record (key, ts, value),
// a watermark (advance) or an early firing (early).
type step struct {
	key     string
	ts      int64
	v       float64
	advance bool
	early   bool
}

func rec(key string, ts int64, v float64) step { return step{key: key, ts: ts, v: v} }
func wm(w int64) step                          { return step{ts: w, advance: true} }
func early() step                              { return step{early: true} }

// run drives an operator over steps and renders everything it produced as
// lines, so table tests can state exact expectations.
func run(t testing.TB, op *windows.Operator, steps []step) []string {
	t.Helper()
	var lines []string
	var out windows.Output
	tombs := map[windows.Ref]bool{}
	for _, s := range steps {
		out.Reset()
		switch {
		case s.advance:
			op.Advance(s.ts, &out)
		case s.early:
			op.FireEarly(&out)
			lines = append(lines, "early")
		default:
			v := op.OnRecord(s.key, windows.Record{TS: s.ts, Values: []windows.Value{windows.NumberValue(s.v)}}, &out)
			lines = append(lines, fmt.Sprintf("%s@%d %v", s.key, s.ts, v))
		}
		lines = append(lines, renderTombs(op, &out, tombs)...)
	}
	return lines
}

// renderTombs renders out, with its purges of tombs as "untomb KEY WINDOW" and
// the tombs it left as "tomb KEY WINDOW next=N". tombs holds the tombs out of
// earlier outputs, and is brought up to date.
func renderTombs(op *windows.Operator, out *windows.Output, tombs map[windows.Ref]bool) []string {
	var lines []string
	for _, line := range render(out) {
		if !strings.HasPrefix(line, "purge ") {
			lines = append(lines, line)
		}
	}
	for _, p := range out.Purged {
		if tombs[p] {
			lines = append(lines, fmt.Sprintf("untomb %s %v", p.Key, p.Window))
			delete(tombs, p)
		} else {
			lines = append(lines, fmt.Sprintf("purge %s %v", p.Key, p.Window))
		}
	}
	for _, u := range out.Updated {
		if next, ok := op.Tomb(u.Key, u.Window); ok && !tombs[u] {
			lines = append(lines, fmt.Sprintf("tomb %s %v next=%d", u.Key, u.Window, next))
			tombs[u] = true
		}
	}
	return lines
}

func render(out *windows.Output) []string {
	var lines []string
	for _, r := range out.Results {
		if r.Kind == windows.Retract {
			lines = append(lines, fmt.Sprintf("retract %s %v r%d into %v wm=%d values=%v", r.Key, r.Window, r.Revision, r.MergedInto, r.Watermark, r.Values))
			continue
		}
		var vals []string
		for _, nv := range r.Values {
			vals = append(vals, fmt.Sprintf("%s=%s", nv.Name, num(nv.Value)))
		}
		lines = append(lines, fmt.Sprintf("fire %s %v r%d %v wm=%d %s", r.Key, r.Window, r.Revision, r.Kind, r.Watermark, strings.Join(vals, " ")))
	}
	for _, l := range out.Late {
		lines = append(lines, fmt.Sprintf("late %s@%d wm=%d missed=%v", l.Key, l.TS, l.Watermark, l.Missed))
	}
	if out.Dropped > 0 {
		lines = append(lines, fmt.Sprintf("dropped %d", out.Dropped))
	}
	for _, p := range out.Purged {
		lines = append(lines, fmt.Sprintf("purge %s %v", p.Key, p.Window))
	}
	return lines
}

func num(f float64) string {
	if math.IsNaN(f) {
		return "null"
	}
	return fmt.Sprint(f)
}

func newOp(t testing.TB, asg windows.Assigner, lateness int64, specs ...string) *windows.Operator {
	t.Helper()
	aggs, err := windows.ParseAggregates(specs)
	if err != nil {
		t.Fatal(err)
	}
	return windows.NewOperator(windows.OperatorConfig{Assigner: asg, AllowedLateness: lateness, Aggregates: aggs})
}
