package windows

import (
	"testing"

	"github.com/edged/edged/watermark"
)

func TestEarliestNamesTheOldestWindowAndTheNextToFire(t *testing.T) {
	aggs, err := ParseAggregates([]string{"count"})
	if err != nil {
		t.Fatal(err)
	}
	op := NewOperator(OperatorConfig{Assigner: Sliding(1000, 500, 0), AllowedLateness: 2000, Aggregates: aggs})
	var out Output
	for _, ts := range []int64{100, 1200, 1700} {
		op.OnRecord("k", Record{TS: ts}, &out)
	}
	// Windows [-500,500) [0,1000) [500,1500) [1000,2000) [1500,2500).
	steps := []struct {
		name         string
		wm           int64
		oldest, next Window
	}{
		{"before any firing", watermark.Min, Window{-500, 500}, Window{-500, 500}},
		{"two fired, kept for their lateness", 999, Window{-500, 500}, Window{500, 1500}},
		{"the first purged", 2499, Window{0, 1000}, Window{}},
		{"all purged", 10_000, Window{}, Window{}},
	}
	for _, s := range steps {
		op.Advance(s.wm, &out)
		if oldest, next := op.Earliest("k"); oldest != s.oldest || next != s.next {
			t.Errorf("%s: oldest %v next %v, want %v and %v", s.name, oldest, next, s.oldest, s.next)
		}
	}
	if oldest, next := op.Earliest("other"); oldest != (Window{}) || next != (Window{}) {
		t.Errorf("a key with no window: %v %v", oldest, next)
	}
}
