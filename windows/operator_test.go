package windows_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

func TestOperatorRules(t *testing.T) {
	tests := []struct {
		name     string
		asg      windows.Assigner
		lateness int64
		steps    []step
		want     []string
	}{{
		name:  "a tumbling window fires when the watermark reaches end-1 and is purged without lateness",
		asg:   windows.Tumbling(10, 0),
		steps: []step{rec("k", 1, 1), rec("k", 5, 2), wm(8), wm(9), wm(9), rec("k", 10, 4)},
		want: []string{
			"k@1 applied", "k@5 applied",
			"fire k [0, 10) r0 on_time wm=9 count=2 sum_v=3",
			"purge k [0, 10)",
			"k@10 applied",
		},
	}, {
		name:     "a late record within the lateness re-fires the window with the next revision",
		asg:      windows.Tumbling(10, 0),
		lateness: 5,
		steps:    []step{rec("k", 1, 1), wm(9), rec("k", 3, 2), rec("k", 4, 4), wm(13), wm(14), rec("k", 2, 8)},
		want: []string{
			"k@1 applied",
			"fire k [0, 10) r0 on_time wm=9 count=1 sum_v=1",
			"k@3 applied",
			"fire k [0, 10) r1 late_update wm=9 count=2 sum_v=3",
			"k@4 applied",
			"fire k [0, 10) r2 late_update wm=9 count=3 sum_v=7",
			"purge k [0, 10)",
			"k@2 late_output",
			"late k@2 wm=14 missed=[[0, 10)]",
		},
	}, {
		name:     "a record for a window that never existed but is within lateness fires at once as revision 0",
		asg:      windows.Tumbling(10, 0),
		lateness: 10,
		steps:    []step{wm(12), rec("k", 5, 3), wm(19), rec("k", 6, 1)},
		want: []string{
			"k@5 applied",
			"fire k [0, 10) r0 late_update wm=12 count=1 sum_v=3",
			"purge k [0, 10)",
			"k@6 late_output",
			"late k@6 wm=19 missed=[[0, 10)]",
		},
	}, {
		name:  "a record in a gap between hopping windows is dropped before the watermark passes it and late after",
		asg:   windows.Sliding(5, 10, 0),
		steps: []step{rec("k", 7, 1), wm(100), rec("k", 7, 1), rec("k", 107, 1)},
		want: []string{
			"k@7 dropped", "dropped 1",
			"k@7 late_output", "late k@7 wm=100 missed=[]",
			"k@107 dropped", "dropped 1",
		},
	}, {
		name:     "a record whose windows are past cleanup but whose ts plus lateness is ahead of the watermark is dropped",
		asg:      windows.Sliding(4, 10, 0),
		lateness: 3,
		steps:    []step{rec("k", 1, 1), wm(6), rec("k", 5, 2)},
		want: []string{
			"k@1 applied",
			"fire k [0, 4) r0 on_time wm=6 count=1 sum_v=1",
			"purge k [0, 4)",
			"k@5 dropped", "dropped 1",
		},
	}, {
		name:  "windows fire in order of end, then key, then start",
		asg:   windows.Tumbling(10, 0),
		steps: []step{rec("b", 1, 1), rec("a", 15, 2), rec("b", 12, 3), rec("a", 2, 4), wm(30)},
		want: []string{
			"b@1 applied", "a@15 applied", "b@12 applied", "a@2 applied",
			"fire a [0, 10) r0 on_time wm=30 count=1 sum_v=4",
			"fire b [0, 10) r0 on_time wm=30 count=1 sum_v=1",
			"fire a [10, 20) r0 on_time wm=30 count=1 sum_v=2",
			"fire b [10, 20) r0 on_time wm=30 count=1 sum_v=3",
			"purge a [0, 10)", "purge b [0, 10)", "purge a [10, 20)", "purge b [10, 20)",
		},
	}, {
		name:  "sliding windows overlap and each fires with its own records",
		asg:   windows.Sliding(10, 5, 0),
		steps: []step{rec("k", 7, 1), rec("k", 12, 2), wm(9), wm(14), wm(19)},
		want: []string{
			"k@7 applied", "k@12 applied",
			"fire k [0, 10) r0 on_time wm=9 count=1 sum_v=1",
			"purge k [0, 10)",
			"fire k [5, 15) r0 on_time wm=14 count=2 sum_v=3",
			"purge k [5, 15)",
			"fire k [10, 20) r0 on_time wm=19 count=1 sum_v=2",
			"purge k [10, 20)",
		},
	}, {
		name:  "offsets shift windows and negative timestamps land in the right window",
		asg:   windows.Tumbling(10, 3),
		steps: []step{rec("k", -1, 1), rec("k", -8, 2), rec("k", 3, 4), wm(2)},
		want: []string{
			"k@-1 applied", "k@-8 applied", "k@3 applied",
			"fire k [-17, -7) r0 on_time wm=2 count=1 sum_v=2",
			"fire k [-7, 3) r0 on_time wm=2 count=1 sum_v=1",
			"purge k [-17, -7)", "purge k [-7, 3)",
		},
	}, {
		name:  "sliding windows with an offset cover negative timestamps",
		asg:   windows.Sliding(6, 3, 1),
		steps: []step{rec("k", -3, 1), wm(0)},
		want: []string{
			"k@-3 applied",
			"fire k [-8, -2) r0 on_time wm=0 count=1 sum_v=1",
			"fire k [-5, 1) r0 on_time wm=0 count=1 sum_v=1",
			"purge k [-8, -2)", "purge k [-5, 1)",
		},
	}, {
		name:  "a record bridging two sessions merges them, touching counts as bridging",
		asg:   windows.Session(5),
		steps: []step{rec("k", 1, 1), rec("k", 10, 2), rec("k", 6, 4), wm(13), wm(14)},
		want: []string{
			"k@1 applied", "k@10 applied",
			"k@6 applied",
			"purge k [1, 6)", "purge k [10, 15)",
			"fire k [1, 15) r0 on_time wm=14 count=3 sum_v=7",
			"purge k [1, 15)",
		},
	}, {
		name:     "a session merged with a fired one waits for its own end and counts revisions past the firing",
		asg:      windows.Session(5),
		lateness: 20,
		steps:    []step{rec("k", 1, 1), wm(5), rec("k", 8, 2), rec("k", 4, 4), wm(12), rec("k", 2, 8)},
		want: []string{
			"k@1 applied",
			"fire k [1, 6) r0 on_time wm=5 count=1 sum_v=1",
			"k@8 applied",
			"k@4 applied",
			"purge k [1, 6)", "purge k [8, 13)",
			"fire k [1, 13) r1 on_time wm=12 count=3 sum_v=7",
			"k@2 applied",
			"fire k [1, 13) r2 late_update wm=12 count=4 sum_v=15",
		},
	}, {
		name:     "a merge whose end the watermark passed re-fires at once as a late update",
		asg:      windows.Session(5),
		lateness: 20,
		steps:    []step{rec("k", 1, 1), rec("k", 3, 2), wm(20), rec("k", 9, 4), rec("k", 8, 8), wm(33)},
		want: []string{
			"k@1 applied", "k@3 applied",
			"purge k [1, 6)",
			"fire k [1, 8) r0 on_time wm=20 count=2 sum_v=3",
			"k@9 applied",
			"fire k [9, 14) r0 late_update wm=20 count=1 sum_v=4",
			"k@8 applied",
			"retract k [9, 14) r1 into [1, 14) wm=20 values=[]",
			"fire k [1, 14) r1 late_update wm=20 count=4 sum_v=15",
			"purge k [1, 8)", "purge k [9, 14)", "tomb k [9, 14) next=2",
			"purge k [1, 14)",
		},
	}, {
		name:     "a record whose own session window is past cleanup and touches no live session goes to the late output",
		asg:      windows.Session(10),
		lateness: 0,
		steps:    []step{rec("k", 100, 1), rec("k", 190, 2), wm(150), rec("k", 95, 4), rec("k", 50, 8)},
		want: []string{
			"k@100 applied", "k@190 applied",
			"fire k [100, 110) r0 on_time wm=150 count=1 sum_v=1",
			// [190, 200) opened before any watermark: a chain of late
			// readings could stretch it back to 100, so the start stays.
			"purge k [100, 110)", "tomb k [100, 110) next=1",
			"k@95 late_output", "late k@95 wm=150 missed=[[95, 105)]",
			"k@50 late_output", "late k@50 wm=150 missed=[[50, 60)]",
		},
	}, {
		name:     "a record whose own window is past cleanup but lies in a live session joins it",
		asg:      windows.Session(10),
		lateness: 0,
		steps:    []step{rec("k", 130, 1), rec("k", 138, 2), rec("k", 146, 4), wm(145), rec("k", 132, 8), wm(155)},
		want: []string{
			"k@130 applied", "k@138 applied", "purge k [130, 140)", "k@146 applied", "purge k [130, 148)",
			"k@132 applied",
			"fire k [130, 156) r0 on_time wm=155 count=4 sum_v=15",
			"purge k [130, 156)",
		},
	}, {
		name:     "a record whose own window is past cleanup but touches a live session moves its start, as in Flink",
		asg:      windows.Session(10),
		lateness: 0,
		steps:    []step{rec("k", 140, 1), wm(145), rec("k", 130, 2), wm(149)},
		want: []string{
			"k@140 applied",
			"k@130 applied", "purge k [140, 150)",
			"fire k [130, 150) r0 on_time wm=149 count=2 sum_v=3",
			"purge k [130, 150)",
		},
	}, {
		name:     "a session that takes the start of a purged one counts its revisions on past that one's",
		asg:      windows.Session(10),
		lateness: 0,
		steps:    []step{rec("k", 0, 1), wm(9), rec("k", 5, 2), rec("k", 0, 4), wm(14)},
		want: []string{
			"k@0 applied",
			"fire k [0, 10) r0 on_time wm=9 count=1 sum_v=1",
			"purge k [0, 10)", "tomb k [0, 10) next=1",
			"k@5 applied",
			"k@0 applied", "purge k [5, 15)", "untomb k [0, 10)",
			"fire k [0, 15) r1 on_time wm=14 count=2 sum_v=6",
			"purge k [0, 15)", "tomb k [0, 15) next=2",
		},
	}, {
		name:     "a late record bridging two fired sessions retracts the absorbed one before the merged firing",
		asg:      windows.Session(5),
		lateness: 20,
		steps:    []step{rec("k", 1, 1), rec("k", 9, 2), wm(14), rec("k", 5, 4), wm(40)},
		want: []string{
			"k@1 applied", "k@9 applied",
			"fire k [1, 6) r0 on_time wm=14 count=1 sum_v=1",
			"fire k [9, 14) r0 on_time wm=14 count=1 sum_v=2",
			"k@5 applied",
			"retract k [9, 14) r1 into [1, 14) wm=14 values=[]",
			"fire k [1, 14) r1 late_update wm=14 count=3 sum_v=7",
			"purge k [1, 6)", "purge k [9, 14)", "tomb k [9, 14) next=2",
			"purge k [1, 14)", "untomb k [9, 14)",
		},
	}, {
		name:     "a record extending a fired session to an earlier start retracts it; the new start counts on",
		asg:      windows.Session(5),
		lateness: 20,
		steps:    []step{rec("k", 10, 1), wm(14), rec("k", 6, 2), wm(40)},
		want: []string{
			"k@10 applied",
			"fire k [10, 15) r0 on_time wm=14 count=1 sum_v=1",
			"k@6 applied",
			"retract k [10, 15) r1 into [6, 15) wm=14 values=[]",
			"fire k [6, 15) r1 late_update wm=14 count=2 sum_v=3",
			"purge k [10, 15)", "tomb k [10, 15) next=2",
			"purge k [6, 15)", "untomb k [10, 15)",
		},
	}, {
		name:     "a merge absorbing sessions that never emitted retracts nothing",
		asg:      windows.Session(5),
		lateness: 20,
		steps:    []step{rec("k", 1, 1), rec("k", 9, 2), rec("k", 5, 4), wm(20)},
		want: []string{
			"k@1 applied", "k@9 applied",
			"k@5 applied",
			"purge k [1, 6)", "purge k [9, 14)",
			"fire k [1, 14) r0 on_time wm=20 count=3 sum_v=7",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op := newOp(t, tc.asg, tc.lateness, "count", "sum(v)")
			got := run(t, op, tc.steps)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}

// TestWorkedExampleFromTheSeeds replays the example: event times 100,
// 102, 98, 105, 103, 110, 108 s with a 5 s bound; the watermark is
// max - 5000 - 1 ms, and [90 s, 100 s) fires at the first watermark >= 99999.
func TestWorkedExampleFromTheSeeds(t *testing.T) {
	op := newOp(t, windows.Tumbling(10_000, 0), 0, "count", "min(v)")
	maxTS := int64(math.MinInt64)
	var steps []step
	var wms []int64
	for _, sec := range []int64{100, 102, 98, 105, 103, 110, 108} {
		ts := sec * 1000
		maxTS = max(maxTS, ts)
		steps = append(steps, rec("s", ts, float64(sec)), wm(maxTS-5000-1))
		wms = append(wms, maxTS-5000-1)
	}
	if want := []int64{94999, 96999, 96999, 99999, 99999, 104999, 104999}; !slices.Equal(wms, want) {
		t.Fatalf("watermarks %v, want %v", wms, want)
	}
	got := run(t, op, steps)
	want := []string{
		"s@100000 applied", "s@102000 applied", "s@98000 applied", "s@105000 applied",
		"fire s [90000, 100000) r0 on_time wm=99999 count=1 min_v=98",
		"purge s [90000, 100000)",
		"s@103000 applied", "s@110000 applied", "s@108000 applied",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestOutputNamesWhatChangedForPersistence(t *testing.T) {
	op := newOp(t, windows.Session(5), 10, "count")
	var out windows.Output
	r := func(ts int64) { op.OnRecord("k", windows.Record{TS: ts}, &out) }
	r(1)
	r(2)
	r(10)
	r(6) // bridges [1,7) and [10,15)
	op.Advance(20, &out)
	op.Advance(24, &out)
	ref := func(s, e int64) windows.Ref { return windows.Ref{Key: "k", Window: windows.Window{Start: s, End: e}} }
	wantUpdated := []windows.Ref{ref(1, 6), ref(1, 7), ref(10, 15), ref(1, 15)}
	wantPurged := []windows.Ref{ref(1, 6), ref(1, 7), ref(10, 15), ref(1, 15)}
	if !slices.Equal(out.Updated, wantUpdated) {
		t.Errorf("Updated = %v, want %v", out.Updated, wantUpdated)
	}
	if !slices.Equal(out.Purged, wantPurged) {
		t.Errorf("Purged = %v, want %v", out.Purged, wantPurged)
	}
	if _, ok := op.AppendState(nil, "k", windows.Window{Start: 1, End: 15}); ok {
		t.Error("AppendState reports a purged window as existing")
	}
	capResults := cap(out.Results)
	out.Reset()
	if len(out.Results)+len(out.Updated)+len(out.Purged)+out.Dropped != 0 || cap(out.Results) != capResults {
		t.Errorf("Reset left %+v or dropped capacity", out)
	}
}

func TestWatermarkStartsAtMinusInfinityAndNeverGoesBack(t *testing.T) {
	op := newOp(t, windows.Tumbling(10, 0), 0, "count")
	if op.Watermark() != math.MinInt64 {
		t.Fatalf("initial watermark %d, want math.MinInt64", op.Watermark())
	}
	var out windows.Output
	op.Advance(50, &out)
	op.Advance(40, &out)
	if op.Watermark() != 50 {
		t.Errorf("watermark %d after advancing to 50 then 40, want 50", op.Watermark())
	}
}

// TestOutputIsDeterministic runs the same many-key stream through two
// operators: every result, late record, update and purge must come out in
// the same order (nothing may depend on map iteration).
func TestOutputIsDeterministic(t *testing.T) {
	const seed = 7
	t.Logf("seed %d", seed)
	events := oracle.Generate(oracle.Config{Seed: seed, Keys: 50, Events: 3000, Step: 2, Disorder: 40,
		LateFraction: 0.1, LateBy: 200, Fields: streamFields})
	for _, asg := range []windows.Assigner{windows.Tumbling(50, 0), windows.Sliding(60, 20, 5), windows.Session(15)} {
		var runs [2]string
		for i := range runs {
			op := newOp(t, asg, 30, allAggregates...)
			var out windows.Output
			var b strings.Builder
			maxTS := int64(math.MinInt64)
			for j, e := range events {
				op.OnRecord(e.Key, windows.Record{TS: e.TS, Values: e.Values}, &out)
				maxTS = max(maxTS, e.TS)
				if j%7 == 0 {
					op.Advance(maxTS-41, &out)
				}
				fmt.Fprintf(&b, "%v\n", out)
				out.Reset()
			}
			runs[i] = b.String()
		}
		if runs[0] != runs[1] {
			t.Errorf("%T: two runs over the same input differ", asg)
		}
	}
}

func TestAddingToAnExistingWindowAllocatesNothing(t *testing.T) {
	for _, specs := range [][]string{
		{"count", "sum(temp)", "min(temp)", "max(temp)", "avg(temp)"},
		{"count", "min(temp)", "max(temp)", "p95(temp)"},
	} {
		op := newOp(t, windows.Sliding(60_000, 10_000, 0), 0, specs...)
		var out windows.Output
		r := windows.Record{TS: 5, Values: []windows.Value{windows.NumberValue(21.5)}}
		// Past the quantile sketch's first values, and every bin the loop uses.
		for i := range 64 {
			r.Values[0].Num = float64(i % 16)
			op.OnRecord("k", r, &out)
		}
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			r.TS = (r.TS + 7) % 10_000
			r.Values[0].Num = float64(i % 16)
			i++
			op.OnRecord("k", r, &out)
		})
		if allocs != 0 {
			t.Errorf("%v: OnRecord into six existing windows allocates %v times", specs, allocs)
		}
	}
}

func TestDiscardingWindowsFireOnlyWhatArrivedSinceTheirLastFiring(t *testing.T) {
	tests := []struct {
		name  string
		asg   windows.Assigner
		steps []step
		want  []string
	}{{
		name:  "a late record re-fires a discarded window with only itself, revisions as accumulating",
		asg:   windows.Tumbling(10, 0),
		steps: []step{rec("k", 1, 1), rec("k", 2, 2), wm(9), rec("k", 3, 4), rec("k", 4, 8), wm(40)},
		want: []string{
			"k@1 applied", "k@2 applied",
			"fire k [0, 10) r0 on_time wm=9 count=2 sum_v=3",
			"k@3 applied",
			"fire k [0, 10) r1 late_update wm=9 count=1 sum_v=4",
			"k@4 applied",
			"fire k [0, 10) r2 late_update wm=9 count=1 sum_v=8",
			"purge k [0, 10)",
		},
	}, {
		name:  "a merge of discarded sessions holds only the bridging record and retracts nothing",
		asg:   windows.Session(5),
		steps: []step{rec("k", 1, 1), rec("k", 9, 2), wm(14), rec("k", 5, 4), wm(40)},
		want: []string{
			"k@1 applied", "k@9 applied",
			"fire k [1, 6) r0 on_time wm=14 count=1 sum_v=1",
			"fire k [9, 14) r0 on_time wm=14 count=1 sum_v=2",
			"k@5 applied",
			"fire k [1, 14) r1 late_update wm=14 count=1 sum_v=4",
			"purge k [1, 6)", "purge k [9, 14)", "tomb k [9, 14) next=1",
			"purge k [1, 14)", "untomb k [9, 14)",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			aggs, err := windows.ParseAggregates([]string{"count", "sum(v)"})
			if err != nil {
				t.Fatal(err)
			}
			op := windows.NewOperator(windows.OperatorConfig{Assigner: tc.asg, AllowedLateness: 20, Aggregates: aggs, Discarding: true})
			got := run(t, op, tc.steps)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}
