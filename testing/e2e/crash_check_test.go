package e2e

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// crashVerdict compares what edged published with the oracle.
type crashVerdict struct {
	windows, late int      // expected windows, records reported late
	problems      []string // empty: edged is right
}

// crashCheck recomputes every window from the published readings minus the ones
// edged reported late, and checks that the highest revision edged published for
// each window equals it, that no window is missing or extra, that no (window,
// revision) was published with two different values, and, if unique, that none
// was published twice at all.
func crashCheck(t testing.TB, events []oracle.Event, results []harness.Result, late map[int]bool, unique bool) crashVerdict {
	t.Helper()
	aggs, err := windows.ParseAggregates(crashAggregates)
	if err != nil {
		t.Fatal(err)
	}
	accepted := make([]oracle.Event, 0, len(events))
	for i, e := range events {
		if !late[i] {
			accepted = append(accepted, e)
		}
	}
	want := oracle.Compute(windows.Tumbling(crashWindowMS, 0), aggs, accepted)
	v := crashVerdict{windows: len(want), late: len(late)}
	for seq := range late {
		if seq < 0 || seq >= len(events) {
			v.problems = append(v.problems, fmt.Sprintf("late record with seq %d that was never published", seq))
		}
	}

	type revision struct {
		id  harness.ID
		rev int
	}
	seen := map[revision]harness.Result{}
	for _, r := range results {
		k := revision{r.ID(), r.Revision}
		prev, ok := seen[k]
		switch {
		case !ok:
			seen[k] = r
		case !sameValues(prev, r):
			v.problems = append(v.problems, fmt.Sprintf("window %v revision %d published with two values: %s and %s", k.id, k.rev, showResult(prev), showResult(r)))
		case unique:
			v.problems = append(v.problems, fmt.Sprintf("window %v revision %d published twice", k.id, k.rev))
		}
	}

	latest := harness.Latest(results)
	for ref, vals := range want {
		id := harness.ID{Device: crashDevice, Window: "w", Key: ref.Key, Start: ref.Window.Start}
		got, ok := latest[id]
		if !ok {
			v.problems = append(v.problems, fmt.Sprintf("window %v missing (want %v)", id, vals))
			continue
		}
		delete(latest, id)
		if err := oracle.Equal(namedValues(got, aggs), vals, aggs); err != nil {
			v.problems = append(v.problems, fmt.Sprintf("window %v revision %d: %v", id, got.Revision, strings.ReplaceAll(err.Error(), "\n", "; ")))
		}
	}
	for id, r := range latest {
		v.problems = append(v.problems, fmt.Sprintf("window %v published (%s) but no accepted reading falls in it", id, showResult(r)))
	}
	slices.Sort(v.problems)
	return v
}

func namedValues(r harness.Result, aggs *windows.Aggregates) []windows.NamedValue {
	out := make([]windows.NamedValue, 0, len(aggs.Names()))
	for _, n := range aggs.Names() {
		x := math.NaN()
		if p := r.Values[n]; p != nil {
			x = *p
		}
		out = append(out, windows.NamedValue{Name: n, Value: x})
	}
	return out
}

func sameValues(a, b harness.Result) bool {
	if a.End != b.End || a.Kind != b.Kind || len(a.Values) != len(b.Values) {
		return false
	}
	for n, x := range a.Values {
		y, ok := b.Values[n]
		if !ok || (x == nil) != (y == nil) || (x != nil && *x != *y) {
			return false
		}
	}
	return true
}

func showResult(r harness.Result) string {
	var parts []string
	for _, n := range crashAggregatesNames() {
		if p := r.Values[n]; p != nil {
			parts = append(parts, fmt.Sprintf("%s=%g", n, *p))
		}
	}
	return fmt.Sprintf("rev %d %s wm %d %s", r.Revision, r.Kind, r.Watermark, strings.Join(parts, " "))
}

func crashAggregatesNames() []string {
	aggs, _ := windows.ParseAggregates(crashAggregates)
	return aggs.Names()
}

// crashReport fails the test with the first problems of a verdict.
func crashReport(t testing.TB, v crashVerdict) {
	t.Helper()
	if len(v.problems) == 0 {
		return
	}
	shown := v.problems[:min(len(v.problems), 25)]
	t.Errorf("%d problems over %d windows (%d records reported late); first %d:\n%s",
		len(v.problems), v.windows, v.late, len(shown), strings.Join(shown, "\n"))
}
