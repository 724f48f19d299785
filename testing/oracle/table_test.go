package oracle

import (
	"testing"

	"github.com/edged/edged/windows"
)

func TestTakeRemovesTheRowsItReturnsAndTheirTombstones(t *testing.T) {
	tab := NewTable()
	v := []windows.NamedValue{{Name: "count", Value: 1}}
	for _, r := range []windows.Result{
		{Key: "a", Window: windows.Window{Start: 0, End: 10}, Values: v},
		{Key: "a", Window: windows.Window{Start: 10, End: 20}, Values: v},
		{Key: "b", Window: windows.Window{Start: 0, End: 10}, Values: v},
		{Key: "b", Window: windows.Window{Start: 0, End: 10}, Revision: 1, Kind: windows.Retract},
	} {
		if err := tab.Apply(r); err != nil {
			t.Fatal(err)
		}
	}
	early := func(ref windows.Ref) bool { return ref.Window.End <= 10 }
	got := tab.Take(early)
	if len(got) != 1 || got[windows.Ref{Key: "a", Window: windows.Window{Start: 0, End: 10}}] == nil {
		t.Errorf("Take returned %v, want a's first window alone", got)
	}
	if rows := tab.Rows(); len(rows) != 1 {
		t.Errorf("%d rows left, want a's second window alone: %v", len(rows), rows)
	}
	// The tombstone went with the take: b's start may come back as a new row.
	if err := tab.Apply(windows.Result{Key: "b", Window: windows.Window{Start: 0, End: 10}, Values: v}); err != nil {
		t.Errorf("a result for a start taken away: %v", err)
	}
}

func TestAHigherRevisionBringsARetractedStartBack(t *testing.T) {
	tab := NewTable()
	v := []windows.NamedValue{{Name: "count", Value: 1}}
	w := windows.Window{Start: 0, End: 10}
	for _, r := range []windows.Result{
		{Key: "a", Window: w, Values: v},
		{Key: "a", Window: w, Revision: 1, Kind: windows.Retract},
		{Key: "a", Window: windows.Window{Start: 0, End: 15}, Revision: 2, Values: v}, // a session took the start again
	} {
		if err := tab.Apply(r); err != nil {
			t.Fatal(err)
		}
	}
	if rows := tab.Rows(); len(rows) != 1 || rows[windows.Ref{Key: "a", Window: windows.Window{Start: 0, End: 15}}] == nil {
		t.Errorf("rows %v, want [0, 15) alone", rows)
	}
	if err := tab.Apply(windows.Result{Key: "a", Window: w, Revision: 2, Values: v}); err == nil {
		t.Error("a revision that does not exceed the row's was applied")
	}
}
