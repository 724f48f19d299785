package persist

import (
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/edged/edged/watermark"
	"github.com/klauspost/compress/zstd"
)

// logBlocks counts the state-log blocks s holds.
func logBlocks(t *testing.T, s *Store) int {
	t.Helper()
	n := 0
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagStateLog}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// seen is what every read of the store returns for device "dev", so stores can be
// compared whatever holds their values: keys, blocks, or both.
type seen struct {
	Device  *DeviceState
	Index   []KeyName
	Keys    []*KeyState
	Stream  watermark.GeneratorState
	Devices []string
}

func readAll(t *testing.T, s *Store) seen {
	t.Helper()
	ds, err := s.LoadDevice("dev")
	if err != nil {
		t.Fatal(err)
	}
	devices, err := s.Devices()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := s.LoadIndex("dev")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	fromIndex, _, err := ix.LoadKeys(ix.Keys)
	if err != nil {
		t.Fatal(err)
	}
	names := []KeyName{{"1m", "k1"}, {"1m", "k2"}, {"1m", "k3"}, {"1m", "gone"}}
	now, _, err := s.LoadKeys("dev", names)
	if err != nil {
		t.Fatal(err)
	}
	if len(fromIndex) != 3 || !reflect.DeepEqual(fromIndex, now[:3]) {
		t.Errorf("the index's LoadKeys read %+v, the store's %+v", fromIndex, now)
	}
	st, ok, err := s.LoadStream("dev", "s/1")
	if err != nil || !ok {
		t.Fatalf("LoadStream: %v, %v", ok, err)
	}
	return seen{Device: ds, Index: ix.Keys, Keys: now, Stream: st, Devices: devices}
}

// logged commits, as a feed does, values that overwrite and delete values a
// checkpoint wrote under their keys, so that the blocks after it change them.
func logged(t *testing.T, s *Store) {
	t.Helper()
	commit := func(f func(b *Batch)) {
		b := s.NewBatch()
		f(b)
		if err := s.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	valve := []watermark.ValveInput{{Input: "s/1", Watermark: 10, Aligned: true}}
	commit(func(b *Batch) {
		b.PutWindowDef("dev", "1m", []byte("def"))
		b.PutWindow(WindowKey{"dev", "1m", "k1", 0}, []byte("k1 v1"))
		b.PutWindow(WindowKey{"dev", "1m", "k2", 0}, []byte("k2 v1"))
		b.PutWindow(WindowKey{"dev", "1m", "gone", 0}, []byte("gone"))
		b.PutValve("dev", "1m", "gone", 5, valve)
		b.PutStream("dev", "s/1", watermark.GeneratorState{Max: 10, Watermark: 5, Seen: true})
		b.PutUptime("dev", 1000)
	})
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	commit(func(b *Batch) {
		b.PutWindow(WindowKey{"dev", "1m", "k1", 0}, []byte("k1 v2"))
		b.PutWindow(WindowKey{"dev", "1m", "k1", 60000}, []byte("k1 next"))
		b.DeleteWindow(WindowKey{"dev", "1m", "gone", 0})
		b.DeleteValve("dev", "1m", "gone")
		b.PutStream("dev", "s/1", watermark.GeneratorState{Max: 70, Watermark: 65, Seen: true})
	})
	commit(func(b *Batch) {
		b.PutWindow(WindowKey{"dev", "1m", "k3", -60000}, []byte("k3 v1"))
		b.PutWindow(WindowKey{"dev", "1m", "k1", 0}, []byte("k1 v3"))
		b.PutValve("dev", "1m", "k2", 9, valve)
		b.PutUptime("dev", 2000)
	})
}

func TestReadsSeeTheStateLogBeforeACheckpointAfterItAndAfterACrash(t *testing.T) {
	s := openStore(t, Options{})
	logged(t, s)
	if n := logBlocks(t, s); n != 2 {
		t.Fatalf("%d blocks after two commits since a checkpoint, want 2", n)
	}
	crashed, crashedToo := copyDir(t, s.where), copyDir(t, s.where) // as kill -9 leaves it

	ro, err := Open(Options{Dir: crashed, ReadOnly: true}) // reads, never checkpoints
	if err != nil {
		t.Fatal(err)
	}
	want := readAll(t, ro)
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	k1 := want.Keys[0]
	if k1 == nil || len(k1.Windows) != 2 || string(k1.Windows[0].State) != "k1 v3" || want.Keys[3] != nil ||
		want.Stream.Max != 70 || want.Device.Uptime != 2000 || want.Keys[1] == nil || want.Keys[1].Watermark != 9 {
		t.Fatalf("reads of the log: %+v", want)
	}

	// A running store's own reads, before anything checkpoints.
	keys, _, err := s.LoadKeys("dev", []KeyName{{"1m", "k1"}, {"1m", "k2"}, {"1m", "k3"}, {"1m", "gone"}})
	if err != nil || !reflect.DeepEqual(keys, want.Keys) {
		t.Errorf("LoadKeys before a checkpoint = %+v, %v; want %+v", keys, err, want.Keys)
	}
	if st, _, _ := s.LoadStream("dev", "s/1"); st != want.Stream {
		t.Errorf("LoadStream before a checkpoint = %+v, want %+v", st, want.Stream)
	}
	if ds, _ := s.LoadDevice("dev"); !reflect.DeepEqual(ds, want.Device) {
		t.Errorf("LoadDevice before a checkpoint = %+v, want %+v", ds, want.Device)
	}
	if n := logBlocks(t, s); n != 2 {
		t.Fatalf("%d blocks after reads that do not checkpoint, want 2", n)
	}

	restarted := openStore(t, Options{Dir: crashedToo})
	if n := logBlocks(t, restarted); n != 2 {
		t.Errorf("a restart left %d blocks, want the 2 it read back", n)
	}
	if got := readAll(t, restarted); !reflect.DeepEqual(got, want) {
		t.Errorf("restart after a crash:\n%+v\nwant %+v", got, want)
	}

	if got := readAll(t, s); !reflect.DeepEqual(got, want) { // LoadIndex checkpoints
		t.Errorf("after a checkpoint:\n%+v\nwant %+v", got, want)
	}
	if n := logBlocks(t, s); n != 0 {
		t.Errorf("%d blocks after a checkpoint", n)
	}
	s = reopen(t, s, Options{})
	if got := readAll(t, s); !reflect.DeepEqual(got, want) {
		t.Errorf("after a clean restart:\n%+v\nwant %+v", got, want)
	}
}

// A checkpoint writes the keys, then deletes the blocks oldest first: a crash
// between or during the deletes leaves newer blocks over newer keys, which read the
// same.
func TestACheckpointCutShortByACrashReadsTheSame(t *testing.T) {
	for deleted := range 3 {
		t.Run(fmt.Sprintf("%d blocks deleted", deleted), func(t *testing.T) {
			same := openStore(t, Options{})
			logged(t, same)
			want := readAll(t, same) // reading checkpoints: not s

			s := openStore(t, Options{})
			logged(t, s)
			wb := s.db.NewWriteBatch()
			for _, r := range s.states.all() {
				if r.del {
					wb.Delete(r.key)
				} else {
					wb.Set(r.key, r.val)
				}
			}
			for seq := s.states.first; seq < s.states.first+uint64(deleted); seq++ {
				wb.Delete(logKey(nil, seq))
			}
			if err := wb.Flush(); err != nil {
				t.Fatal(err)
			}
			restarted := openStore(t, Options{Dir: copyDir(t, s.where)})
			if n := logBlocks(t, restarted); n != 2-deleted {
				t.Fatalf("%d blocks left, want %d", n, 2-deleted)
			}
			if got := readAll(t, restarted); !reflect.DeepEqual(got, want) {
				t.Errorf("got\n%+v\nwant %+v", got, want)
			}
		})
	}
}

// commitKeys commits one batch writing a window state for each of keys.
func commitKeys(t *testing.T, s *Store, state byte, keys ...string) {
	t.Helper()
	b := s.NewBatch()
	for _, k := range keys {
		b.PutWindow(WindowKey{"dev", "1m", k, 0}, append(make([]byte, 100), state, k[len(k)-1]))
	}
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// badgerHas reports whether Badger holds key under its own key.
func badgerHas(t *testing.T, s *Store, key []byte) bool {
	t.Helper()
	err := s.db.View(func(txn *badger.Txn) error { _, err := txn.Get(key); return err })
	if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func TestABlockWhoseValuesAreAllWrittenAgainIsDeletedByTheNextCommit(t *testing.T) {
	s := openStore(t, Options{})
	keys := []string{"k1", "k2", "k3"}
	for i := range 100 {
		commitKeys(t, s, byte(i), keys...)
	}
	if n := logBlocks(t, s); n != 2 {
		t.Errorf("%d blocks after 100 commits of the same keys, want 2 (the last, and the one the last made dead)", n)
	}
	ks, _, err := s.LoadKeys("dev", []KeyName{{"1m", "k2"}})
	if err != nil || ks[0] == nil || ks[0].Windows[0].State[100] != 99 {
		t.Errorf("LoadKeys = %+v, %v", ks, err)
	}
	if badgerHas(t, s, windowKey(nil, WindowKey{"dev", "1m", "k2", 0})) {
		t.Error("a value rewritten within seconds went under its own key")
	}
}

func TestValuesThatStayAreWrittenUnderTheirKeysOnceTheirBlockIsOld(t *testing.T) {
	var now atomic.Int64 // the clock, read by the marks' sealer too
	now.Store(time.Unix(1000, 0).UnixNano())
	s := openStore(t, Options{clock: func() time.Time { return time.Unix(0, now.Load()) }})
	commitKeys(t, s, 1, "quiet", "busy")
	now.Add(int64(checkpointAge / 2))
	commitKeys(t, s, 2, "busy", "other")
	now.Add(int64(checkpointAge / 2))
	commitKeys(t, s, 3, "busy")
	// The first block (quiet) is checkpointAge old: it is aged, and so is the second,
	// half of that old; their current values go under their own keys.
	if !badgerHas(t, s, windowKey(nil, WindowKey{"dev", "1m", "quiet", 0})) ||
		!badgerHas(t, s, windowKey(nil, WindowKey{"dev", "1m", "other", 0})) {
		t.Error("the values of aged blocks are not under their own keys")
	}
	if badgerHas(t, s, windowKey(nil, WindowKey{"dev", "1m", "busy", 0})) {
		t.Error("a value of the newest block went under its own key")
	}
	if n := logBlocks(t, s); n != 1 {
		t.Errorf("%d blocks left, want 1", n)
	}
	ks, _, err := s.LoadKeys("dev", []KeyName{{"1m", "quiet"}, {"1m", "busy"}, {"1m", "other"}})
	if err != nil || ks[0].Windows[0].State[100] != 1 || ks[1].Windows[0].State[100] != 3 || ks[2].Windows[0].State[100] != 2 {
		t.Errorf("LoadKeys = %+v, %v", ks, err)
	}
}

func TestBlocksLeftStayBelowAQuarterOfAMemtable(t *testing.T) {
	s := openStore(t, Options{memTableSize: 64 << 10})
	for i := range 400 {
		commitKeys(t, s, byte(i), fmt.Sprintf("k%d", i)) // values no later block writes again
	}
	if s.states.bytes >= s.states.limit {
		t.Errorf("%d bytes of blocks left, the limit is %d", s.states.bytes, s.states.limit)
	}
	if n := logBlocks(t, s); n == 400 || n == 0 {
		t.Errorf("%d blocks left after 400 commits: none aged, or all", n)
	}
	ks, _, err := s.LoadKeys("dev", []KeyName{{"1m", "k7"}, {"1m", "k399"}})
	if err != nil || ks[0] == nil || ks[0].Windows[0].State[100] != 7 || ks[1] == nil {
		t.Errorf("LoadKeys = %+v, %v", ks, err)
	}
}

func TestMemoryStoresWriteKeysNotBlocks(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	logged(t, s)
	if n := logBlocks(t, s); n != 0 || s.states != nil {
		t.Errorf("%d blocks in memory", n)
	}
}

func TestABlockDecodesToItsRecordsAndRefusesGarbage(t *testing.T) {
	recs := []logRec{
		{key: windowKey(nil, WindowKey{"dev", "1m", "a", 0}), val: []byte("one")},
		{key: windowKey(nil, WindowKey{"dev", "1m", "a", 0}), val: []byte("two")},
		{key: windowKey(nil, WindowKey{"dev", "1m", "b", 0}), del: true},
		{key: streamKey(nil, "dev", "s/1"), val: []byte{}},
	}
	var e blockEncoder
	block := e.encode(nil, recs)
	zr, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got, err := decodeBlock(zr, block)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("%d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if string(got[i].key) != string(recs[i].key) || string(got[i].val) != string(recs[i].val) || got[i].del != recs[i].del {
			t.Errorf("record %d = %+v, want %+v", i, got[i], recs[i])
		}
	}
	for _, bad := range [][]byte{nil, {9}, block[:len(block)-3], append([]byte{blockVersion}, "not zstd"...)} {
		if _, err := decodeBlock(zr, bad); err == nil {
			t.Errorf("decoded garbage %x", bad)
		}
	}
}
