package persist

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/edged/edged/watermark"
)

func TestDevicesListsEachDeviceOnceAndDeleteDeviceRemovesOnlyItsKeys(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	b := s.NewBatch()
	for _, d := range []string{"a", "ab", "a\x00", ""} {
		b.PutWindowDef(d, "1m", []byte("def"))
		b.PutStream(d, "s", watermark.GeneratorState{})
		b.PutValve(d, "1m", "k", 0, nil)
		b.PutWindow(WindowKey{d, "1m", "k", 0}, []byte("w"))
		b.PutWindow(WindowKey{d, "1m", "k", 1}, []byte("w"))
		b.PutMark(d, "1m", "k", 1)
	}
	b.Enqueue("a", []byte("outbox is not a device"))
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	got, err := s.Devices()
	if want := []string{"", "a", "a\x00", "ab"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Devices = %q, %v; want %q", got, err, want)
	}
	if err := s.DeleteDevice("a"); err != nil {
		t.Fatal(err)
	}
	got, err = s.Devices()
	if want := []string{"", "a\x00", "ab"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Devices after delete = %q, %v; want %q", got, err, want)
	}
	if ok, _ := s.HasMark("a", "1m", "k", 1); !ok {
		t.Error("the deleted device's mark went before its TTL (marks are kept by segment, not by device)")
	}
	for _, d := range []string{"ab", "a\x00"} {
		ds, err := s.LoadDevice(d)
		if err != nil || len(ds.Keys) != 1 || len(ds.Keys[0].Windows) != 2 || len(ds.Streams) != 1 {
			t.Errorf("device %q after deleting a: %+v, %v", d, ds, err)
		}
	}
	if st := s.Stats("a"); st.Records != 1 {
		t.Errorf("outbox a after deleting device a: %+v", st)
	}
}

func TestUndecodableValuesAreReportedWithTheirKeyAndTheRestLoads(t *testing.T) {
	s := undecodableStore(t, func(txn *badger.Txn) error {
		txn.Set(streamKey(nil, "dev", "bad"), []byte{7, 1, 2})
		txn.Set(valveKey(nil, "dev", "1m", "k"), []byte{1, 3})
		return txn.Set(append(devicePrefix(tagWindow, "dev"), "garbage"...), []byte("w"))
	})
	ds, err := s.LoadDevice("dev")
	if err != nil {
		t.Fatalf("LoadDevice: %v", err)
	}
	if _, ok := ds.Streams["good"]; !ok || len(ds.Streams) != 1 {
		t.Errorf("Streams = %+v, want only the good one", ds.Streams)
	}
	if len(ds.Keys) != 1 || ds.Keys[0].Valve != nil || len(ds.Keys[0].Windows) != 1 {
		t.Errorf("Keys = %+v, want k with its window and no valve", ds.Keys)
	}
	tests := []struct {
		wantKey string
		wantErr error
	}{
		{`s/"dev"/"bad"`, ErrUnknownVersion},
		{`v/"dev"/"1m"/"k"`, ErrCorrupt},
		{"malformed key", ErrCorrupt},
	}
	if len(ds.Corrupt) != len(tests) {
		t.Fatalf("Corrupt = %v, want %d entries", ds.Corrupt, len(tests))
	}
	for i, tt := range tests {
		e := ds.Corrupt[i]
		if !strings.Contains(e.Error(), tt.wantKey) || !errors.Is(e, tt.wantErr) {
			t.Errorf("Corrupt[%d] = %v, want it to name %s and wrap %v", i, e, tt.wantKey, tt.wantErr)
		}
	}
}

// undecodableStore holds device dev's stream "good" and a window of key k, then what
// set writes straight to Badger: values edged's own encoders would never produce.
func undecodableStore(t *testing.T, set func(txn *badger.Txn) error) *Store {
	t.Helper()
	s := openStore(t, Options{Durability: Memory})
	b := s.NewBatch()
	b.PutStream("dev", "good", watermark.GeneratorState{Seen: true})
	b.PutWindow(WindowKey{"dev", "1m", "k", 0}, []byte("w"))
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Update(set); err != nil {
		t.Fatal(err)
	}
	return s
}
