package windows_test

import (
	"fmt"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/edged/edged/windows"
)

// boundsAggregates puts quantiles from both tails beside the exact extremes.
var boundsAggregates = []string{"min(v)", "max(v)", "p1(v)", "p50(v)", "p95(v)", "p99(v)", "p999(v)"}

// TestQuantilesStayInsideTheirWindowsMinAndMax drives the operator with random
// feeds whose values cluster tightly (a sensor reading 22.0 and 22.2, where a
// 1 % sketch bin spans them all) or spread over magnitudes and signs, in every
// window type, accumulating or discarding, with early firings, late updates,
// session merges and a restart from persisted state: every quantile of every
// result lies inside that result's exact [min, max].
func TestQuantilesStayInsideTheirWindowsMinAndMax(t *testing.T) {
	aggs, err := windows.ParseAggregates(boundsAggregates)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(t *rapid.T) {
		cfg := windows.OperatorConfig{
			Assigner:        drawAssigner(t),
			AllowedLateness: rapid.Int64Range(0, 50).Draw(t, "lateness"),
			Aggregates:      aggs,
			Discarding:      rapid.Bool().Draw(t, "discarding"),
		}
		if rapid.Bool().Draw(t, "early firings") {
			cfg.Early = 1
		}
		center := rapid.SampledFrom([]float64{22, -3.5, 0, 1e-9, 123456.789, -1e12}).Draw(t, "center")
		spread := rapid.SampledFrom([]float64{0, 0.002, 0.02, 1, 1e6}).Draw(t, "relative spread") * max(math.Abs(center), 1)
		events := rapid.IntRange(1, 150).Draw(t, "events")
		restoreAt := rapid.IntRange(0, events).Draw(t, "restore at")
		keys := []string{"k0", "k1", "k2"}

		op := windows.NewOperator(cfg)
		var out windows.Output
		check := func() {
			for _, r := range out.Results {
				if err := quantilesInside(r); err != nil {
					t.Fatalf("%s %v revision %d (%v): %v", r.Key, r.Window, r.Revision, r.Kind, err)
				}
			}
			out.Reset()
		}
		clock, maxTS := int64(0), int64(math.MinInt64)
		for i := range events {
			if i == restoreAt {
				op = restored(t, op, cfg, keys)
			}
			clock += rapid.Int64Range(0, 8).Draw(t, "step")
			ts := clock - rapid.Int64Range(0, 60).Draw(t, "disorder")
			v := windows.Value{}
			if rapid.IntRange(0, 9).Draw(t, "missing") > 0 {
				v = windows.NumberValue(center + rapid.Float64Range(-spread, spread).Draw(t, "offset"))
			}
			op.OnRecord(rapid.SampledFrom(keys).Draw(t, "key"), windows.Record{TS: ts, Values: []windows.Value{v}}, &out)
			check()
			maxTS = max(maxTS, ts)
			if rapid.IntRange(0, 3).Draw(t, "advance now") == 0 {
				op.Advance(maxTS-rapid.Int64Range(0, 40).Draw(t, "bound")-1, &out)
				check()
			}
			if cfg.Early > 0 && rapid.IntRange(0, 3).Draw(t, "early now") == 0 {
				op.FireEarly(&out)
				check()
			}
		}
		op.Advance(math.MaxInt64, &out)
		check()
	})
}

// quantilesInside checks every pNN of r against r's min and max: inside, or
// all NaN when the window saw no value.
func quantilesInside(r windows.Result) error {
	if r.Kind == windows.Retract {
		return nil
	}
	lo, hi := r.Values[0].Value, r.Values[1].Value
	for _, nv := range r.Values[2:] {
		switch {
		case math.IsNaN(lo) != math.IsNaN(nv.Value):
			return fmt.Errorf("%s = %v but min = %v", nv.Name, nv.Value, lo)
		case nv.Value < lo || nv.Value > hi:
			return fmt.Errorf("%s = %v lies outside [min, max] = [%v, %v]", nv.Name, nv.Value, lo, hi)
		}
	}
	return nil
}

// restored is an operator restored from op's persisted windows, as after a
// restart.
func restored(t *rapid.T, op *windows.Operator, cfg windows.OperatorConfig, keys []string) *windows.Operator {
	fresh := windows.NewOperator(cfg)
	var buf []byte
	for _, key := range keys {
		for _, w := range op.Windows(key) {
			buf, _ = op.AppendState(buf[:0], key, w)
			if err := fresh.Restore(key, w, buf); err != nil {
				t.Fatalf("restoring %s %v: %v", key, w, err)
			}
		}
	}
	fresh.SetWatermark(op.Watermark())
	return fresh
}
