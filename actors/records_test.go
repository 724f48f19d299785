package actors

import (
	"math"
	"testing"

	"github.com/edged/edged/windows"
)

func TestResultRecordsRenderEveryKind(t *testing.T) {
	w := windows.Window{Start: 9, End: 14}
	tests := []struct {
		name string
		res  windows.Result
		want string
	}{{
		name: "an on-time firing carries its values, null for an empty aggregate",
		res: windows.Result{Key: "k", Window: w, Kind: windows.OnTime, Watermark: 13,
			Values: []windows.NamedValue{{Name: "count", Value: 2}, {Name: "avg_v", Value: math.NaN()}}},
		want: `{"device":"d","window":"s","key":"k","start":9,"end":14,"revision":0,"kind":"on_time","values":{"count":2,"avg_v":null},"watermark":13,"emitted_at":99}`,
	}, {
		name: "a retract carries null values and the session that absorbed the window",
		res:  windows.Result{Key: "k", Window: w, Revision: 1, Kind: windows.Retract, Watermark: 14, MergedInto: windows.Window{Start: 1, End: 14}},
		want: `{"device":"d","window":"s","key":"k","start":9,"end":14,"revision":1,"kind":"retract","values":null,"merged_into":{"start":1,"end":14},"watermark":14,"emitted_at":99}`,
	}, {
		name: "an early firing before the first watermark says null",
		res: windows.Result{Key: "k", Window: w, Kind: windows.Early, Watermark: math.MinInt64,
			Values: []windows.NamedValue{{Name: "count", Value: 1}}},
		want: `{"device":"d","window":"s","key":"k","start":9,"end":14,"revision":0,"kind":"early","values":{"count":1},"watermark":null,"emitted_at":99}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(appendResult(nil, "d", "s", &tc.res, 99)); got != tc.want {
				t.Errorf("got\n\t%s\nwant\n\t%s", got, tc.want)
			}
		})
	}
}
