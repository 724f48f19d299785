package persist

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/edged/edged/watermark"
)

func TestIndexThenKeysReadWhatLoadDeviceReads(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	b := s.NewBatch()
	for _, d := range []string{"dev", "dev\x00", "devx"} {
		b.PutWindowDef(d, "1m", []byte("def 1m"))
		b.PutWindowDef(d, "5m\x00", []byte("def 5m"))
		b.PutStream(d, "s/1", watermark.GeneratorState{Seen: true, Max: 7})
		b.PutStream(d, "s/\x002", watermark.GeneratorState{Idle: true})
		// Both, valve only, windows only, and names with a 0x00, in two windows.
		b.PutValve(d, "1m", "both", 60_000, []watermark.ValveInput{{Input: "s/1", Watermark: 5}, {Input: "s/\x002", Idle: true}})
		b.PutWindow(WindowKey{d, "1m", "both", -60_000}, []byte("w-1"))
		b.PutWindow(WindowKey{d, "1m", "both", 0}, []byte("w0"))
		b.PutValve(d, "1m", "valve only", 3, nil)
		b.PutWindow(WindowKey{d, "1m", "windows\x00only", 60_000}, []byte("w1"))
		b.PutWindow(WindowKey{d, "1m", "windows", 0}, []byte("w"))
		b.PutValve(d, "5m\x00", "both", 9, []watermark.ValveInput{{Input: "s/1"}})
		b.PutWindow(WindowKey{d, "5m\x00", "both", 0}, []byte("w5"))
		b.PutMark(d, "1m", "marks only", 1)
	}
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	want, err := s.LoadDevice("dev")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := s.LoadIndex("dev")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	streams := map[string]watermark.GeneratorState{}
	for _, st := range ix.Streams {
		streams[st.Stream] = st.State
	}
	if !reflect.DeepEqual(ix.WindowDefs, want.WindowDefs) || !reflect.DeepEqual(streams, want.Streams) || len(ix.Corrupt) != 0 {
		t.Errorf("index: defs %q, streams %+v, corrupt %v; want %q, %+v, none", ix.WindowDefs, ix.Streams, ix.Corrupt, want.WindowDefs, want.Streams)
	}
	if !slices.IsSortedFunc(ix.Streams, func(a, b StreamState) int { return strings.Compare(a.Stream, b.Stream) }) {
		t.Errorf("index streams %+v are not sorted", ix.Streams)
	}
	// The index names the keys that hold windows: one with a valve only is
	// passivated, and comes back when a reading needs it.
	var names []KeyName
	var withWindows []KeyState
	for _, k := range want.Keys {
		if len(k.Windows) > 0 {
			names = append(names, KeyName{k.Window, k.Key})
			withWindows = append(withWindows, k)
		}
	}
	if !reflect.DeepEqual(ix.Keys, names) {
		t.Errorf("index keys = %q, want %q", ix.Keys, names)
	}
	got, corrupt, err := ix.LoadKeys(ix.Keys)
	if err != nil || len(corrupt) != 0 || len(got) != len(withWindows) {
		t.Fatalf("LoadKeys = %d keys, corrupt %v, %v; want %d keys", len(got), corrupt, err, len(withWindows))
	}
	for i, k := range got {
		if k == nil || !reflect.DeepEqual(*k, withWindows[i]) {
			t.Errorf("LoadKeys[%d] = %+v, want %+v", i, k, withWindows[i])
		}
	}
	if valveOnly, _, err := ix.LoadKeys([]KeyName{{"1m", "valve only"}}); err != nil || valveOnly[0] == nil || valveOnly[0].Watermark != 3 {
		t.Errorf("LoadKeys of the key with a valve only = %+v, %v", valveOnly, err)
	}
	// One at a time, out of order, and a key with nothing stored.
	one, _, err := ix.LoadKeys([]KeyName{{"5m\x00", "both"}, {"1m", "marks only"}, {"1m", "both"}})
	if err != nil || one[0] == nil || one[0].Watermark != 9 || one[1] != nil || one[2] == nil || len(one[2].Windows) != 2 {
		t.Errorf("LoadKeys of three keys = %+v, %v", one, err)
	}
}

func TestIndexAndKeysReportUndecodableValuesOnceAndLoadTheRest(t *testing.T) {
	s := undecodableStore(t, func(txn *badger.Txn) error {
		txn.Set(streamKey(nil, "dev", "bad"), []byte{7, 1, 2})
		txn.Set(valveKey(nil, "dev", "1m", "k"), []byte{1, 3})
		txn.Set(valveKey(nil, "dev", "1m", "valve only"), []byte{1, 3})
		// A malformed start under a good key, and a key that does not parse.
		txn.Set(append(appendSeg(appendSeg(devicePrefix(tagWindow, "dev"), "1m"), "k"), 1, 2), []byte("w"))
		return txn.Set(append(devicePrefix(tagWindow, "dev"), "garbage"...), []byte("w"))
	})
	ix, err := s.LoadIndex("dev")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if len(ix.Streams) != 1 || ix.Streams[0].Stream != "good" {
		t.Errorf("Streams = %+v, want only the good one", ix.Streams)
	}
	if want := []KeyName{{"1m", "k"}}; !reflect.DeepEqual(ix.Keys, want) {
		t.Errorf("Keys = %q, want %q", ix.Keys, want)
	}
	checkCorrupt(t, "LoadIndex", ix.Corrupt, []string{`s/"dev"/"bad"`, "malformed key", "malformed key"}, []error{ErrUnknownVersion, ErrCorrupt, ErrCorrupt})
	keys, corrupt, err := ix.LoadKeys(append(ix.Keys, KeyName{"1m", "valve only"}))
	if err != nil {
		t.Fatal(err)
	}
	if keys[0] == nil || keys[0].Valve != nil || len(keys[0].Windows) != 1 || keys[1] != nil {
		t.Errorf("LoadKeys = %+v, want k with its one good window and no valve, and nothing for the key with only a bad valve", keys)
	}
	checkCorrupt(t, "LoadKeys", corrupt, []string{`v/"dev"/"1m"/"k"`, `v/"dev"/"1m"/"valve only"`}, []error{ErrCorrupt, ErrCorrupt})
	for _, tt := range []struct {
		stream string
		ok     bool
	}{{"good", true}, {"bad", false}, {"none", false}} {
		st, ok, err := s.LoadStream("dev", tt.stream)
		if err != nil || ok != tt.ok || ok && !st.Seen {
			t.Errorf("LoadStream(%q) = %+v, %v, %v; want ok %v", tt.stream, st, ok, err, tt.ok)
		}
	}
}

func checkCorrupt(t *testing.T, what string, got []*DecodeError, keys []string, errs []error) {
	t.Helper()
	if len(got) != len(keys) {
		t.Fatalf("%s: corrupt = %v, want %d entries", what, got, len(keys))
	}
	for i, e := range got {
		if !strings.Contains(e.Error(), keys[i]) || !errors.Is(e, errs[i]) {
			t.Errorf("%s: corrupt[%d] = %v, want it to name %s and wrap %v", what, i, e, keys[i], errs[i])
		}
	}
}

// A key is read as it was when the index was read, however much later; Store.LoadKeys
// reads it as it is now.
func TestAnIndexReadsKeysFromItsSnapshot(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	put := func(wm int64, state string) {
		b := s.NewBatch()
		b.PutValve("dev", "1m", "k", wm, nil)
		b.PutWindow(WindowKey{"dev", "1m", "k", 0}, []byte(state))
		if err := s.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	put(1, "old")
	ix, err := s.LoadIndex("dev")
	if err != nil {
		t.Fatal(err)
	}
	put(2, "new")
	k := []KeyName{{"1m", "k"}}
	then, _, err := ix.LoadKeys(k)
	if err != nil || then[0].Watermark != 1 || string(then[0].Windows[0].State) != "old" {
		t.Errorf("index LoadKeys = %+v, %v; want watermark 1 and the old window", then[0], err)
	}
	now, _, err := s.LoadKeys("dev", k)
	if err != nil || now[0].Watermark != 2 || string(now[0].Windows[0].State) != "new" {
		t.Errorf("Store.LoadKeys = %+v, %v; want watermark 2 and the new window", now[0], err)
	}
	ix.Close()
	ix.Close()
	if _, _, err := ix.LoadKeys(k); err == nil {
		t.Error("LoadKeys of a closed index succeeded")
	}
}

// Keys read in the store's order with gaps, and out of it, read the same as one by one.
func TestLoadKeysSkipsAndGoesBack(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	b := s.NewBatch()
	for i := range 50 {
		key := fmt.Sprintf("k%02d", i)
		if i%3 != 0 {
			b.PutValve("dev", "1m", key, int64(i), nil)
		}
		for start := range int64(i % 4) {
			b.PutWindow(WindowKey{"dev", "1m", key, start}, []byte(key))
		}
	}
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	ix, err := s.LoadIndex("dev")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var names []KeyName
	for _, i := range []int{0, 1, 13, 14, 15, 40, 49, 2, 3, 48, 50} {
		names = append(names, KeyName{"1m", fmt.Sprintf("k%02d", i)})
	}
	got, _, err := ix.LoadKeys(names)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		want, _, err := s.LoadKeys("dev", []KeyName{n})
		if err != nil || !reflect.DeepEqual(got[i], want[0]) {
			t.Errorf("%s: %+v read with the others, %+v (%v) alone", n.Key, got[i], want[0], err)
		}
	}
}

// A device's uptime is its own: the index reads the latest saved, devices with a
// 0x00 in the name do not share it, it lists the device, and deleting the device
// deletes it. Every loader drifts an idle stream's state to it.
func TestUptimeIsSavedPerDeviceAndDriftsItsStreams(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	idle := watermark.GeneratorState{Seen: true, Idle: true, Watermark: 5_000, Base: 4_000, BaseAt: 700}
	for _, ms := range []int64{1_000, 2_500} {
		b := s.NewBatch()
		b.PutStream("dev", "s/1", idle)
		b.PutUptime("dev", ms)
		b.PutUptime("dev\x00", ms*10)
		if err := s.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	want := idle
	want.Watermark = 4_000 + 2_500 - 700
	ix, err := s.LoadIndex("dev")
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if ix.Uptime != 2_500 || len(ix.Streams) != 1 || ix.Streams[0].State != want {
		t.Errorf("index: uptime %d, streams %+v; want 2500 and %+v", ix.Uptime, ix.Streams, want)
	}
	if st, ok, err := s.LoadStream("dev", "s/1"); err != nil || !ok || st != want {
		t.Errorf("LoadStream = %+v, %v, %v; want %+v", st, ok, err, want)
	}
	if ds, err := s.LoadDevice("dev"); err != nil || ds.Uptime != 2_500 || ds.Streams["s/1"] != want {
		t.Errorf("LoadDevice = %+v, %v; want uptime 2500 and %+v", ds, err, want)
	}
	ix, err = s.LoadIndex("dev\x00")
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if ix.Uptime != 25_000 {
		t.Errorf("uptime of dev\\x00 = %d, want 25000", ix.Uptime)
	}
	if ds, err := s.Devices(); err != nil || !slices.Equal(ds, []string{"dev", "dev\x00"}) {
		t.Errorf("Devices = %q, %v", ds, err)
	}
	if err := s.DeleteDevice("dev"); err != nil {
		t.Fatal(err)
	}
	if ds, err := s.LoadDevice("dev"); err != nil || ds.Uptime != 0 {
		t.Errorf("after DeleteDevice, LoadDevice = %+v, %v; want no uptime", ds, err)
	}
}

func TestAnUnreadableUptimeIsReportedAndReadAsZero(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(uptimeKey(nil, "dev"), []byte{9}) }); err != nil {
		t.Fatal(err)
	}
	ix, err := s.LoadIndex("dev")
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if ix.Uptime != 0 || len(ix.Corrupt) != 1 || !strings.Contains(ix.Corrupt[0].Error(), `u/"dev"`) {
		t.Errorf("uptime %d, corrupt %v; want 0 and the key named", ix.Uptime, ix.Corrupt)
	}
}
