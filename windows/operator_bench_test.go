package windows_test

// Run with:
//
//	go test ./windows -run '^$' -bench . -benchmem
//
// Inputs are fixed (no randomness), so runs are comparable.

import (
	"fmt"
	"testing"

	"github.com/edged/edged/windows"
)

// benchStream feeds one key a record every 10 ms of event time, three in
// four slightly out of order, advancing the watermark (bound 50 ms) every
// 100 records: the steady state of a sensor's window actor.
func benchStream(b *testing.B, asg windows.Assigner, specs ...string) {
	op := newOp(b, asg, 1000, specs...)
	var out windows.Output
	vals := []windows.Value{windows.NumberValue(21.5)}
	b.ReportAllocs()
	b.ResetTimer()
	maxTS := int64(0)
	for i := range b.N {
		ts := int64(i) * 10
		if i%4 != 0 {
			ts -= 25
		}
		maxTS = max(maxTS, ts)
		vals[0].Num = float64(i%200) / 4
		op.OnRecord("sensor-1", windows.Record{TS: ts, Values: vals}, &out)
		if i%100 == 99 {
			op.Advance(maxTS-51, &out)
			out.Reset()
		}
	}
}

func BenchmarkOnRecordTumblingCountAvgMinMaxP95(b *testing.B) {
	benchStream(b, windows.Tumbling(10_000, 0), "count", "avg(temp)", "min(temp)", "max(temp)", "p95(temp)")
}

func BenchmarkOnRecordSlidingSixWindowsPerRecord(b *testing.B) {
	benchStream(b, windows.Sliding(60_000, 10_000, 0), "count", "avg(temp)", "min(temp)", "max(temp)", "p95(temp)")
}

// BenchmarkOnRecordExistingWindowPlainAggregates must report 0 allocs/op.
func BenchmarkOnRecordExistingWindowPlainAggregates(b *testing.B) {
	op := newOp(b, windows.Tumbling(1<<40, 0), 0, "count", "sum(temp)", "min(temp)", "max(temp)", "avg(temp)")
	var out windows.Output
	vals := []windows.Value{windows.NumberValue(21.5)}
	op.OnRecord("sensor-1", windows.Record{TS: 0, Values: vals}, &out)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		vals[0].Num = float64(i % 64)
		op.OnRecord("sensor-1", windows.Record{TS: int64(i % 1_000_000), Values: vals}, &out)
	}
}

// BenchmarkAdvanceTenDueWindows: keys each hold a window far in the future,
// and per op ten of them get a record in a fresh window that one Advance
// fires and purges. The cost must not grow with the number of keys.
func BenchmarkAdvanceTenDueWindows(b *testing.B) {
	for _, keys := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			op := newOp(b, windows.Tumbling(1000, 0), 0, "count", "avg(temp)")
			var out windows.Output
			names := make([]string, keys)
			vals := []windows.Value{windows.NumberValue(1)}
			for k := range names {
				names[k] = fmt.Sprintf("sensor-%d", k)
				op.OnRecord(names[k], windows.Record{TS: 1 << 40, Values: vals}, &out)
			}
			out.Reset()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				base := int64(i) * 1000
				for k := range 10 {
					op.OnRecord(names[(i*10+k)%keys], windows.Record{TS: base + int64(k), Values: vals}, &out)
				}
				op.Advance(base+999, &out)
				if len(out.Results) != 10 {
					b.Fatalf("%d results, want 10", len(out.Results))
				}
				out.Reset()
			}
		})
	}
}

// BenchmarkFireEarly: keys each hold an open window; per op, `changed` of
// them get a record and one FireEarly emits them. The cost must follow the
// changed windows, not the open ones.
func BenchmarkFireEarly(b *testing.B) {
	for _, keys := range []int{1_000, 10_000} {
		for _, changed := range []int{10, keys} {
			b.Run(fmt.Sprintf("keys=%d/changed=%d", keys, changed), func(b *testing.B) {
				aggs, err := windows.ParseAggregates([]string{"count", "avg(temp)"})
				if err != nil {
					b.Fatal(err)
				}
				op := windows.NewOperator(windows.OperatorConfig{Assigner: windows.Tumbling(1<<40, 0), Aggregates: aggs, Early: 10_000})
				var out windows.Output
				names := make([]string, keys)
				vals := []windows.Value{windows.NumberValue(1)}
				for k := range names {
					names[k] = fmt.Sprintf("sensor-%d", k)
					op.OnRecord(names[k], windows.Record{TS: 1, Values: vals}, &out)
				}
				op.FireEarly(&out)
				out.Reset()
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					for k := range changed {
						op.OnRecord(names[(i*changed+k)%keys], windows.Record{TS: 2, Values: vals}, &out)
					}
					op.FireEarly(&out)
					if len(out.Results) != changed {
						b.Fatalf("%d results, want %d", len(out.Results), changed)
					}
					out.Reset()
				}
			})
		}
	}
}

// BenchmarkSessionsOpenFireAndGo: one key's bursts of three records, 300 ms
// apart, gap 1 s; each op is one burst and an Advance that fires and purges the
// session before it, which leaves a tomb of its start while a session opening
// within a gap after it could still take it.
func BenchmarkSessionsOpenFireAndGo(b *testing.B) {
	op := newOp(b, windows.Session(1000), 500, "count", "avg(temp)")
	var out windows.Output
	vals := []windows.Value{windows.NumberValue(1)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		base := int64(i) * 5000
		for k := range int64(3) {
			op.OnRecord("sensor-1", windows.Record{TS: base + 300*k, Values: vals}, &out)
		}
		op.Advance(base+2200, &out)
		out.Reset()
	}
}
