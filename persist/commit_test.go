package persist

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/edged/edged/watermark"
)

func TestACommittedBatchLoadsBackInOrder(t *testing.T) {
	for _, d := range []Durability{Process, Memory} {
		t.Run(d.String(), func(t *testing.T) {
			s := openStore(t, Options{Durability: d})
			gen := watermark.GeneratorState{Max: 100, LastArrival: 7, Watermark: 89, Seen: true}
			valve := []watermark.ValveInput{{Input: "s/1", Watermark: 89, Aligned: true}}
			b := s.NewBatch()
			b.PutWindowDef("dev", "1m", []byte("tumbling 60s"))
			b.PutStream("dev", "s/1", gen)
			b.PutValve("dev", "1m", "k2", 0, valve)
			buf := []byte("state-b")
			b.PutWindow(WindowKey{"dev", "1m", "k2", 60000}, buf)
			copy(buf, "XXXXXXX") // the batch keeps its own copy
			b.PutWindow(WindowKey{"dev", "1m", "k2", -60000}, []byte("state-a"))
			b.PutWindow(WindowKey{"dev", "1m", "k1", 0}, []byte("state-k1"))
			b.PutWindow(WindowKey{"dev", "1m", "gone", 0}, []byte("x"))
			b.EndUnit()
			b.DeleteWindow(WindowKey{"dev", "1m", "gone", 0})
			b.PutWindow(WindowKey{"other", "1m", "k1", 0}, []byte("not mine"))
			if b.Len() != 9 {
				t.Errorf("Len() = %d, want 9", b.Len())
			}
			if err := s.Commit(b); err != nil {
				t.Fatalf("Commit: %v", err)
			}
			if d != Memory {
				s = reopen(t, s, Options{})
			}
			got, err := s.LoadDevice("dev")
			if err != nil {
				t.Fatalf("LoadDevice: %v", err)
			}
			want := &DeviceState{
				Streams: map[string]watermark.GeneratorState{"s/1": gen},
				Keys: []KeyState{
					{Window: "1m", Key: "k1", Watermark: watermark.Min, Windows: []WindowState{{0, []byte("state-k1")}}},
					{Window: "1m", Key: "k2", Valve: valve, Windows: []WindowState{{-60000, []byte("state-a")}, {60000, []byte("state-b")}}},
				},
				WindowDefs: map[string][]byte{"1m": []byte("tumbling 60s")},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("LoadDevice = %+v\nwant %+v", got, want)
			}
		})
	}
}

// smallTxn opens a store whose transactions hold only about a hundred writes.
func smallTxn(t testing.TB) *Store {
	return openStore(t, Options{Durability: Memory, memTableSize: 128 << 10})
}

func TestASplitCommitKeepsEveryUnitInOneTransaction(t *testing.T) {
	s := smallTxn(t)
	b := s.NewBatch()
	const units, perUnit = 40, 17
	for u := range units {
		for i := range perUnit {
			b.PutWindow(WindowKey{"dev", "1m", fmt.Sprintf("k%02d", u), int64(i)}, []byte(strings.Repeat("v", 50)))
		}
		b.Enqueue("late", []byte("late record"))
		b.EndUnit()
	}
	if err := s.Commit(b); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	// Badger gives every write of a transaction the transaction's commit version.
	versions := map[uint64]bool{}
	err := s.db.View(func(txn *badger.Txn) error {
		for u := range units {
			unit := map[uint64]bool{}
			for i := range perUnit {
				item, err := txn.Get(windowKey(nil, WindowKey{"dev", "1m", fmt.Sprintf("k%02d", u), int64(i)}))
				if err != nil {
					return err
				}
				unit[item.Version()] = true
			}
			item, err := txn.Get(outboxKey(nil, "late", uint64(u+1)))
			if err != nil {
				return err
			}
			unit[item.Version()] = true
			if len(unit) != 1 {
				t.Errorf("unit %d was written by %d transactions", u, len(unit))
			}
			for v := range unit {
				versions[v] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) < 2 {
		t.Errorf("the batch went in %d transaction(s); the test needs a split", len(versions))
	}
	if st := s.Stats("late"); st.Records != units {
		t.Errorf("Stats = %+v, want %d records", st, units)
	}
}

func TestAUnitTooBigForOneTransactionFailsAfterCommittingTheUnitsBeforeIt(t *testing.T) {
	s := smallTxn(t)
	b := s.NewBatch()
	b.PutWindow(WindowKey{"dev", "1m", "small", 0}, []byte("x"))
	b.EndUnit()
	for i := range 5000 {
		b.PutWindow(WindowKey{"dev", "1m", "huge", int64(i)}, []byte("x"))
	}
	err := s.Commit(b)
	if err == nil || !strings.Contains(err.Error(), "one unit of 5000 changes is too big") {
		t.Fatalf("Commit error = %v, want one about a unit too big", err)
	}
	ds, err := s.LoadDevice("dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Keys) != 1 || ds.Keys[0].Key != "small" {
		t.Errorf("stored keys = %+v, want only the small unit", ds.Keys)
	}
}

// A committer reuses one batch: what the first commit wrote must not change when the
// reset batch's buffers are overwritten by the next.
func TestABatchResetAfterItsCommitCommitsOnlyTheNextChanges(t *testing.T) {
	for _, d := range []Durability{Process, Memory} {
		t.Run(d.String(), func(t *testing.T) {
			s := openStore(t, Options{Durability: d})
			b := s.NewBatch()
			b.PutWindow(WindowKey{"dev", "1m", "k1", 0}, []byte("first"))
			b.Enqueue("results/dev", []byte("r1"))
			if err := s.Commit(b); err != nil {
				t.Fatalf("Commit: %v", err)
			}
			b.Reset()
			if b.Len() != 0 {
				t.Fatalf("Len() after Reset = %d, want 0", b.Len())
			}
			b.PutWindow(WindowKey{"dev", "1m", "k2", 0}, []byte("other"))
			if err := s.Commit(b); err != nil {
				t.Fatalf("Commit after Reset: %v", err)
			}
			got, err := s.LoadDevice("dev")
			if err != nil {
				t.Fatalf("LoadDevice: %v", err)
			}
			want := []KeyState{
				{Window: "1m", Key: "k1", Watermark: watermark.Min, Windows: []WindowState{{0, []byte("first")}}},
				{Window: "1m", Key: "k2", Watermark: watermark.Min, Windows: []WindowState{{0, []byte("other")}}},
			}
			if !reflect.DeepEqual(got.Keys, want) {
				t.Errorf("Keys = %+v\nwant %+v", got.Keys, want)
			}
			entries, err := s.Peek("results/dev", 0, 10)
			if err != nil || len(entries) != 1 || string(entries[0].Payload) != "r1" {
				t.Errorf("Peek = %+v, %v; want the one entry r1", entries, err)
			}
		})
	}
}

// A batch spans many arena blocks, one value larger than a block, and the blocks a
// Reset keeps are refilled by the next batch: every value commits as it was put.
func TestBatchesLargerThanTheirBlocksCommitEveryValueIntact(t *testing.T) {
	s := openStore(t, Options{})
	b := s.NewBatch()
	want := map[string][]byte{}
	for round := range 2 {
		for i := range 3000 {
			v := bytes.Repeat([]byte{byte(round*7 + i)}, 1+i%97)
			if i == 1500 {
				v = bytes.Repeat([]byte{byte(round + 1)}, arenaBlock+100)
			}
			k := fmt.Sprintf("k%d", i)
			b.PutWindow(WindowKey{"dev", "1m", k, 0}, v)
			want[k] = v
			b.EndUnit()
		}
		if err := s.Commit(b); err != nil {
			t.Fatalf("round %d: Commit: %v", round, err)
		}
		b.Reset()
	}
	got, err := s.LoadDevice("dev")
	if err != nil {
		t.Fatalf("LoadDevice: %v", err)
	}
	if len(got.Keys) != len(want) {
		t.Fatalf("LoadDevice holds %d keys, want %d", len(got.Keys), len(want))
	}
	for _, k := range got.Keys {
		if len(k.Windows) != 1 || !bytes.Equal(k.Windows[0].State, want[k.Key]) {
			t.Fatalf("key %s: windows %d, state of %d bytes; want the %d bytes of round 2", k.Key, len(k.Windows), len(k.Windows[0].State), len(want[k.Key]))
		}
	}
}

// A batch of more changes than maxTxnOps commits in several transactions of whole
// units, a unit larger than that in one of its own, and everything loads back.
func TestABatchBeyondMaxTxnOpsCommitsInTransactionsOfWholeUnits(t *testing.T) {
	s := openStore(t, Options{})
	b := s.NewBatch()
	sizes := []int{3000, 3000, maxTxnOps + 1000, 10}
	n := 0
	for u, size := range sizes {
		for i := range size {
			b.PutWindow(WindowKey{"dev", "1m", fmt.Sprintf("u%d-%d", u, i), 0}, []byte{byte(u)})
			n++
		}
		b.EndUnit()
	}
	before := s.commits
	if err := s.Commit(b); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	// 3000 | 3000 | 5096 | 10: the first two do not fit together, the big unit goes
	// alone, and so does the last, which does not fit beside it.
	if got := s.commits - before; got != 4 {
		t.Errorf("transactions = %d, want 4", got)
	}
	got, err := s.LoadDevice("dev")
	if err != nil {
		t.Fatalf("LoadDevice: %v", err)
	}
	if len(got.Keys) != n {
		t.Errorf("LoadDevice holds %d keys, want %d", len(got.Keys), n)
	}
}
