package windows_test

import (
	"slices"
	"testing"

	"github.com/edged/edged/windows"
)

func TestAssignersPlaceTimestampsInFlinksWindows(t *testing.T) {
	w := func(s, e int64) windows.Window { return windows.Window{Start: s, End: e} }
	tests := []struct {
		name string
		asg  windows.Assigner
		ts   int64
		want []windows.Window
	}{
		{"tumbling at a boundary starts a window", windows.Tumbling(10, 0), 10, []windows.Window{w(10, 20)}},
		{"tumbling just before a boundary", windows.Tumbling(10, 0), 9, []windows.Window{w(0, 10)}},
		{"tumbling with a negative timestamp", windows.Tumbling(10, 0), -1, []windows.Window{w(-10, 0)}},
		{"tumbling with an offset", windows.Tumbling(10, 3), 2, []windows.Window{w(-7, 3)}},
		{"tumbling with a negative offset", windows.Tumbling(10, -3), 7, []windows.Window{w(7, 17)}},
		{"tumbling with an offset larger than the size", windows.Tumbling(10, 13), 2, []windows.Window{w(-7, 3)}},
		{"sliding gives size/slide windows ascending", windows.Sliding(30, 10, 0), 25, []windows.Window{w(0, 30), w(10, 40), w(20, 50)}},
		{"sliding with a negative timestamp", windows.Sliding(20, 10, 0), -5, []windows.Window{w(-20, 0), w(-10, 10)}},
		{"sliding with an offset", windows.Sliding(20, 10, 5), 5, []windows.Window{w(-5, 15), w(5, 25)}},
		{"hopping leaves gaps when the slide exceeds the size", windows.Sliding(5, 10, 0), 7, nil},
		{"session opens [ts, ts+gap)", windows.Session(30), -4, []windows.Window{w(-4, 26)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.asg.Assign(tc.ts, nil)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Assign(%d) = %v, want %v", tc.ts, got, tc.want)
			}
			if tc.asg.Merging() != (tc.name[:7] == "session") {
				t.Errorf("Merging() = %v", tc.asg.Merging())
			}
		})
	}
}
