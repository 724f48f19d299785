package windows

import (
	"testing"
)

func TestPeekShowsARestoredWindowWithoutFiringIt(t *testing.T) {
	aggs, err := ParseAggregates([]string{"count", "sum(v)"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := OperatorConfig{Assigner: Tumbling(1000, 0), Aggregates: aggs}
	src := NewOperator(cfg)
	var out Output
	for _, v := range []float64{1, 2.5} {
		src.OnRecord("k", Record{TS: 10, Values: []Value{NumberValue(v)}}, &out)
	}
	w := Window{Start: 0, End: 1000}
	state, ok := src.AppendState(nil, "k", w)
	if !ok {
		t.Fatal("no state for the window")
	}
	dst := NewOperator(cfg)
	if err := dst.Restore("k", w, state); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		key      string
		w        Window
		ok       bool
		count    float64
		sum      float64
		revision int
	}{
		{"the restored window shows its values", "k", w, true, 2, 3.5, 0},
		{"another key has no window", "other", w, false, 0, 0, 0},
		{"another start has no window", "k", Window{Start: 1000, End: 2000}, false, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals, rev, ok := dst.Peek(tt.key, tt.w)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if rev != tt.revision || vals[0].Value != tt.count || vals[1].Value != tt.sum {
				t.Errorf("got %v revision %d, want count %v sum %v revision %d", vals, rev, tt.count, tt.sum, tt.revision)
			}
		})
	}
	var after Output
	dst.Advance(0, &after) // the window is not due: peeking must not have made it fire
	if _, rev, _ := dst.Peek("k", w); rev != 0 || len(after.Results) != 0 {
		t.Errorf("after peeking: revision %d, %d results", rev, len(after.Results))
	}
}
