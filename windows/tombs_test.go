package windows

import (
	"slices"
	"testing"
)

func sessionOperator(t *testing.T, gap, lateness int64) *Operator {
	t.Helper()
	aggs, err := ParseAggregates([]string{"count"})
	if err != nil {
		t.Fatal(err)
	}
	return NewOperator(OperatorConfig{Assigner: Session(gap), AllowedLateness: lateness, Aggregates: aggs})
}

// TestATombLeftAndDroppedInOneOutputIsOnlyPurged covers a window actor, which keeps
// the last word per window of a whole flush: purged first, then updated. A tomb
// left and dropped in one Advance must not be among the updated windows, or the
// actor would keep the purged session's saved state, and a restart would bring
// the session back.
func TestATombLeftAndDroppedInOneOutputIsOnlyPurged(t *testing.T) {
	op := sessionOperator(t, 10, 0)
	var out Output
	// Both open before any watermark, so [20, 30) could be stretched back to
	// 0 and covers [0, 10)'s start until it goes, in the same Advance.
	op.OnRecord("k", Record{TS: 0}, &out)
	op.OnRecord("k", Record{TS: 20}, &out)
	out.Reset()
	op.Advance(40, &out)
	first := Ref{Key: "k", Window: Window{Start: 0, End: 10}}
	if !slices.Contains(out.Purged, first) || slices.Contains(out.Updated, first) {
		t.Errorf("Purged %v, Updated %v: want [0, 10) purged and not updated", out.Purged, out.Updated)
	}
	if op.Holds("k") {
		t.Errorf("the key holds state after everything went: %v", op.Windows("k"))
	}
}

// TestSessionStateOfEarlierVersionsDecodes restores a session window saved as
// edged wrote it before reaches and tombs (as a tumbling window's state still
// is): it reaches no further back than its start, and it fires as it would have.
func TestSessionStateOfEarlierVersionsDecodes(t *testing.T) {
	aggs, err := ParseAggregates([]string{"count"})
	if err != nil {
		t.Fatal(err)
	}
	old := NewOperator(OperatorConfig{Assigner: Tumbling(10, 0), AllowedLateness: 20, Aggregates: aggs})
	var out Output
	old.OnRecord("k", Record{TS: 3}, &out)
	old.Advance(9, &out)
	w := Window{Start: 0, End: 10}
	state, ok := old.AppendState(nil, "k", w)
	if !ok {
		t.Fatal("no state for the window")
	}
	op := sessionOperator(t, 10, 20)
	if err := op.Restore("k", w, state); err != nil {
		t.Fatal(err)
	}
	op.SetWatermark(9)
	if ws := op.keys.get("k").wins[0]; ws.reach != 0 || !ws.fired || ws.fires != 1 {
		t.Errorf("restored reach %d, fired %v, revision %d; want 0, true, 1", ws.reach, ws.fired, ws.fires)
	}
	out.Reset()
	op.OnRecord("k", Record{TS: 0}, &out) // in it: its own window is the same
	if len(out.Results) != 1 || out.Results[0].Revision != 1 || out.Results[0].Kind != LateUpdate {
		t.Errorf("results %+v, want a late update at revision 1", out.Results)
	}
}

func TestIsTombTellsATombsStateFromAWindows(t *testing.T) {
	op := sessionOperator(t, 10, 0)
	var out Output
	op.OnRecord("k", Record{TS: 0}, &out)
	op.Advance(9, &out) // [0, 10) fires and goes: a session could still open at 1..9
	op.OnRecord("k", Record{TS: 5}, &out)
	tombState, ok := op.AppendState(nil, "k", Window{Start: 0, End: 10})
	if !ok {
		t.Fatal("no tomb of [0, 10)")
	}
	winState, ok := op.AppendState(nil, "k", Window{Start: 5, End: 15})
	if !ok {
		t.Fatal("no window [5, 15)")
	}
	if !IsTomb(tombState) || IsTomb(winState) || IsTomb(nil) {
		t.Errorf("IsTomb: tomb %v, window %v, empty %v; want true, false, false", IsTomb(tombState), IsTomb(winState), IsTomb(nil))
	}
}
