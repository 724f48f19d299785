package windows_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/edged/edged/windows"
)

func TestEarlyFiringsEmitChangedWindowsBeforeTheirOnTimeFiring(t *testing.T) {
	tests := []struct {
		name       string
		asg        windows.Assigner
		discarding bool
		steps      []step
		want       []string
	}{{
		name:  "changed windows fire early in key order, unchanged ones stay quiet, revisions run on into on_time",
		asg:   windows.Tumbling(10, 0),
		steps: []step{rec("b", 1, 1), rec("a", 2, 2), rec("a", 12, 4), early(), early(), rec("b", 3, 8), early(), wm(9), wm(19)},
		want: []string{
			"b@1 applied", "a@2 applied", "a@12 applied",
			"early",
			"fire a [0, 10) r0 early wm=-9223372036854775808 count=1 sum_v=2",
			"fire a [10, 20) r0 early wm=-9223372036854775808 count=1 sum_v=4",
			"fire b [0, 10) r0 early wm=-9223372036854775808 count=1 sum_v=1",
			"early",
			"b@3 applied",
			"early",
			"fire b [0, 10) r1 early wm=-9223372036854775808 count=2 sum_v=9",
			"fire a [0, 10) r1 on_time wm=9 count=1 sum_v=2",
			"fire b [0, 10) r2 on_time wm=9 count=2 sum_v=9",
			"fire a [10, 20) r1 on_time wm=19 count=1 sum_v=4",
		},
	}, {
		name:  "no early firing after the on-time one: late records re-fire as late updates",
		asg:   windows.Tumbling(10, 0),
		steps: []step{rec("k", 1, 1), wm(9), rec("k", 2, 2), early()},
		want: []string{
			"k@1 applied",
			"fire k [0, 10) r0 on_time wm=9 count=1 sum_v=1",
			"k@2 applied",
			"fire k [0, 10) r1 late_update wm=9 count=2 sum_v=3",
			"early",
		},
	}, {
		name:  "a session merged before its early firing fires once, under the merged window",
		asg:   windows.Session(5),
		steps: []step{rec("k", 1, 1), rec("k", 9, 2), rec("k", 5, 4), early(), wm(13)},
		want: []string{
			"k@1 applied", "k@9 applied",
			"k@5 applied",
			"purge k [1, 6)", "purge k [9, 14)",
			"early",
			"fire k [1, 14) r0 early wm=-9223372036854775808 count=3 sum_v=7",
			"fire k [1, 14) r1 on_time wm=13 count=3 sum_v=7",
		},
	}, {
		name:  "a session that fired early and is extended to an earlier start is retracted",
		asg:   windows.Session(5),
		steps: []step{rec("k", 10, 1), early(), rec("k", 6, 2), early()},
		want: []string{
			"k@10 applied",
			"early",
			"fire k [10, 15) r0 early wm=-9223372036854775808 count=1 sum_v=1",
			"k@6 applied",
			"retract k [10, 15) r1 into [6, 15) wm=-9223372036854775808 values=[]",
			"purge k [10, 15)", "tomb k [10, 15) next=2",
			"early",
			"fire k [6, 15) r1 early wm=-9223372036854775808 count=2 sum_v=3",
		},
	}, {
		name:       "discarding early firings carry what is new, and an on-time firing with nothing new is skipped",
		asg:        windows.Tumbling(10, 0),
		discarding: true,
		steps:      []step{rec("k", 1, 1), early(), rec("k", 2, 2), early(), wm(9), rec("k", 3, 4), rec("k", 14, 8), early(), wm(19)},
		want: []string{
			"k@1 applied",
			"early",
			"fire k [0, 10) r0 early wm=-9223372036854775808 count=1 sum_v=1",
			"k@2 applied",
			"early",
			"fire k [0, 10) r1 early wm=-9223372036854775808 count=1 sum_v=2",
			"k@3 applied",
			"fire k [0, 10) r2 late_update wm=9 count=1 sum_v=4",
			"k@14 applied",
			"early",
			"fire k [10, 20) r0 early wm=9 count=1 sum_v=8",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			aggs, err := windows.ParseAggregates([]string{"count", "sum(v)"})
			if err != nil {
				t.Fatal(err)
			}
			op := windows.NewOperator(windows.OperatorConfig{Assigner: tc.asg, AllowedLateness: 20, Aggregates: aggs,
				Discarding: tc.discarding, Early: 10_000})
			got := run(t, op, tc.steps)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}
