package watermark

import (
	"fmt"
	"slices"
	"testing"
)

// update is one Valve.Update in a table test and what it must return.
type update struct {
	input   string
	wm      int64
	idle    bool
	out     int64
	outIdle bool
	changed bool
}

func runUpdates(t testing.TB, v *Valve, ups []update) {
	t.Helper()
	for i, u := range ups {
		got, changed := v.Update(u.input, Status{Watermark: u.wm, Idle: u.idle})
		want := Status{Watermark: u.out, Idle: u.outIdle}
		if got != want || changed != u.changed {
			t.Fatalf("update %d (%s %v): got %v changed=%v, want %v changed=%v",
				i+1, u.input, Status{Watermark: u.wm, Idle: u.idle}, got, changed, want, u.changed)
		}
		if v.Status() != got {
			t.Fatalf("update %d: Status() = %v, Update returned %v", i+1, v.Status(), got)
		}
	}
}

func TestValveWithNoInputsIsMinAndActive(t *testing.T) {
	v := NewValve()
	if got := v.Status(); got != (Status{Watermark: Min}) {
		t.Fatalf("Status() = %v, want min active", got)
	}
	if got := v.State(); len(got) != 0 {
		t.Fatalf("State() = %v, want no inputs", got)
	}
}

func TestValveRules(t *testing.T) {
	cases := []struct {
		name string
		ups  []update
	}{
		{"a single input is followed", []update{
			{"a", 1_000, active, 1_000, active, true},
			{"a", 1_000, active, 1_000, active, false},
			{"a", 2_000, active, 2_000, active, true},
		}},
		{"the output is the minimum over the active inputs", []update{
			{"a", 1_000, active, 1_000, active, true},
			{"b", 500, active, 1_000, active, false}, // b joins behind: holds, does not pull back
			{"a", 3_000, active, 1_000, active, false},
			{"b", 2_000, active, 2_000, active, true},
			{"b", 5_000, active, 3_000, active, true},
		}},
		{"an input's lower watermark is ignored", []update{
			{"a", 1_000, active, 1_000, active, true},
			{"a", 500, active, 1_000, active, false},
			{"b", 2_000, active, 1_000, active, false},
			{"a", 1_500, active, 1_500, active, true},
		}},
		{"an idle input no longer holds the output back", []update{
			{"a", 1_000, active, 1_000, active, true},
			{"b", 4_000, active, 1_000, active, false},
			{"a", 1_000, idle, 4_000, active, true},
			{"b", 6_000, active, 6_000, active, true},
		}},
		{"when all inputs are idle the output is idle at the highest of them", []update{
			{"a", 1_000, active, 1_000, active, true},
			{"b", 3_000, active, 1_000, active, false},
			{"a", 1_000, idle, 3_000, active, true},
			{"b", 3_000, idle, 3_000, idle, true},
			{"a", 5_000, idle, 5_000, idle, true}, // an advancing idle stream still fires its own windows
			{"b", 4_000, idle, 5_000, idle, false},
		}},
		{"an input returning below the output is not aligned and does not pull it back", []update{
			{"a", 1_000, idle, 1_000, idle, true},
			{"b", 3_000, idle, 3_000, idle, true},
			{"a", 1_000, active, 3_000, active, true},
			{"a", 2_000, active, 3_000, active, false},
			{"a", 3_500, active, 3_500, active, true}, // caught up: aligned again
			{"a", 4_000, active, 4_000, active, true},
		}},
		{"an input returning at or above the output is aligned at once", []update{
			{"a", 1_000, active, 1_000, active, true},
			{"b", 2_000, active, 1_000, active, false},
			{"a", 1_000, idle, 2_000, active, true},
			{"a", 2_500, active, 2_000, active, false},
			{"b", 4_000, active, 2_500, active, true}, // a holds the output again
		}},
		{"an unaligned returning input does not hold the output back", []update{
			{"a", 5_000, active, 5_000, active, true},
			{"b", 6_000, active, 5_000, active, false},
			{"a", 5_000, idle, 6_000, active, true},
			{"a", 5_500, active, 6_000, active, false}, // below 6000: not aligned
			{"b", 8_000, active, 8_000, active, true},  // so b alone moves the output
			{"a", 8_000, active, 8_000, active, false}, // reaches 8000: aligned
			{"b", 9_000, active, 8_000, active, false},
			{"a", 9_500, active, 9_000, active, true},
		}},
		{"a joiner behind the output holds it until it catches up", []update{
			{"a", 5_000, active, 5_000, active, true},
			{"b", 1_000, active, 5_000, active, false},
			{"a", 7_000, active, 5_000, active, false},
			{"b", 6_000, active, 6_000, active, true},
		}},
		{"an idle joiner is not aligned", []update{
			{"a", 5_000, active, 5_000, active, true},
			{"b", 1_000, idle, 5_000, active, false},
			{"a", 7_000, active, 7_000, active, true},
		}},
		{"the output of an all-idle valve becomes active when any input does", []update{
			{"a", 5_000, idle, 5_000, idle, true},
			{"b", 2_000, active, 5_000, active, true},
			{"b", 2_000, idle, 5_000, idle, true},
		}},
		{"Min inputs keep the output at Min", []update{
			{"a", Min, active, Min, active, false},
			{"b", 1_000, active, Min, active, false},
			{"a", 2_000, active, 1_000, active, true},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runUpdates(t, NewValve(), c.ups) })
	}
}

func TestValveStateIsSortedByInput(t *testing.T) {
	v := NewValve()
	for _, name := range []string{"s-3", "s-1", "s-2"} {
		v.Update(name, Status{Watermark: 100})
	}
	got := v.State()
	if !slices.IsSortedFunc(got, func(a, b ValveInput) int { return compareInput(a, b.Input) }) {
		t.Fatalf("State() is not sorted by input: %v", got)
	}
	got[0].Watermark = -1 // a copy: the valve must not change
	if v.State()[0].Watermark != 100 {
		t.Fatal("State() returned the valve's own slice")
	}
}

func TestValveRestore(t *testing.T) {
	cases := []struct {
		name string
		ups  []update
		// exact: the restored output equals the one before the restart.
		exact bool
	}{
		{"min over active inputs is restored exactly", []update{
			{"a", 1_000, active, 1_000, active, true},
			{"b", 2_000, active, 1_000, active, false},
			{"a", 3_000, active, 2_000, active, true},
		}, true},
		{"an all-idle valve is restored exactly", []update{
			{"a", 1_000, idle, 1_000, idle, true},
			{"b", 3_000, idle, 3_000, idle, true},
		}, true},
		{"an unaligned input beside an aligned one is restored exactly", []update{
			{"a", 5_000, active, 5_000, active, true},
			{"b", 6_000, active, 5_000, active, false},
			{"a", 5_000, idle, 6_000, active, true},
			{"a", 5_500, active, 6_000, active, false},
		}, true},
		{"a valve whose only active input is unaligned restores lower, never higher", []update{
			{"a", 1_000, idle, 1_000, idle, true},
			{"b", 3_000, idle, 3_000, idle, true},
			{"a", 2_000, active, 3_000, active, true},
		}, false},
		{"a joiner behind the output restores lower, never higher", []update{
			{"a", 5_000, active, 5_000, active, true},
			{"b", 1_000, active, 5_000, active, false},
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := NewValve()
			runUpdates(t, v, c.ups)
			r := NewValve()
			r.Restore(v.State())
			before, after := v.Status(), r.Status()
			if after.Idle != before.Idle || after.Watermark > before.Watermark {
				t.Fatalf("restored %v from %v", after, before)
			}
			if c.exact && (after != before || !slices.Equal(r.State(), v.State())) {
				t.Fatalf("restored %v %v, want %v %v", after, r.State(), before, v.State())
			}
			// Both go on from there the same way once every input has moved on.
			for _, in := range v.State() {
				up := Status{Watermark: 100_000, Idle: in.Idle}
				v.Update(in.Input, up)
				r.Update(in.Input, up)
			}
			if v.Status() != r.Status() {
				t.Fatalf("after catching up: restored valve %v, original %v", r.Status(), v.Status())
			}
		})
	}
}

func TestValveRestoreSortsDeduplicatesAndClearsIdleAlignment(t *testing.T) {
	v := NewValve()
	v.Restore([]ValveInput{
		{Input: "b", Watermark: 2_000, Aligned: true},
		{Input: "a", Watermark: 1_000, Idle: true, Aligned: true},
		{Input: "b", Watermark: 9_000, Aligned: true},
	})
	want := []ValveInput{
		{Input: "a", Watermark: 1_000, Idle: true},
		{Input: "b", Watermark: 2_000, Aligned: true},
	}
	if got := v.State(); !slices.Equal(got, want) {
		t.Fatalf("State() = %v, want %v", got, want)
	}
	if got := v.Status(); got != (Status{Watermark: 2_000}) {
		t.Fatalf("Status() = %v, want 2000 active", got)
	}
	v.Restore(nil)
	if got := v.Status(); got != (Status{Watermark: Min}) {
		t.Fatalf("Status() after restoring nothing = %v, want min active", got)
	}
}

func ExampleValve() {
	v := NewValve()
	fmt.Println(v.Update("sensor-1", Status{Watermark: 10_000}))
	fmt.Println(v.Update("sensor-2", Status{Watermark: 12_000}))
	fmt.Println(v.Update("sensor-1", Status{Watermark: 10_000, Idle: true}))
	// Output:
	// 10000 active true
	// 10000 active false
	// 12000 active true
}
