package persist

import (
	"testing"

	"github.com/edged/edged/watermark"
)

func TestDeleteWindowStateRemovesOnlyThatWindowsKeys(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	b := s.NewBatch()
	for _, w := range []string{"1m", "1m\x00", "1mx"} {
		b.PutWindowDef("dev", w, []byte("def"))
		b.PutValve("dev", w, "k", 0, nil)
		b.PutWindow(WindowKey{"dev", w, "k", 0}, []byte("w"))
		b.PutMark("dev", w, "k", 1)
	}
	b.PutWindow(WindowKey{"other", "1m", "k", 0}, []byte("w"))
	b.PutStream("dev", "1m", watermark.GeneratorState{})
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	n, err := s.DeleteWindowState("dev", "1m")
	if err != nil || n != 3 {
		t.Fatalf("DeleteWindowState = %d, %v; want the def, valve and window", n, err)
	}
	ds, err := s.LoadDevice("dev")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ds.WindowDefs["1m"]; ok || len(ds.WindowDefs) != 2 || len(ds.Keys) != 2 || len(ds.Streams) != 1 {
		t.Errorf("after deleting window 1m: defs %q, keys %+v, streams %v", ds.WindowDefs, ds.Keys, ds.Streams)
	}
	// Marks are kept by segment of wall time, not by window: a deleted window's
	// marks stay until they expire, and skip only a redelivery of a message that
	// was applied to the window before it was deleted.
	if ok, _ := s.HasMark("dev", "1m", "k", 1); !ok {
		t.Error("the deleted window's mark went before its TTL")
	}
	if ok, _ := s.HasMark("dev", "1mx", "k", 1); !ok {
		t.Error("another window's mark went too")
	}
	if ds, _ := s.LoadDevice("other"); len(ds.Keys) != 1 {
		t.Errorf("another device's window went too: %+v", ds.Keys)
	}
}
