package persist

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/edged/edged/watermark"
)

// render describes everything a restart reads of a device, both ways it reads it.
func render(t testing.TB, s *Store, device string) string {
	t.Helper()
	ds, err := s.LoadDevice(device)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "defs %v streams %v\n", ds.WindowDefs, ds.Streams)
	for _, k := range ds.Keys {
		fmt.Fprintf(&sb, "%s/%s wm %d:", k.Window, k.Key, k.Watermark)
		for _, w := range k.Windows {
			fmt.Fprintf(&sb, " %d=%s", w.Start, w.State)
		}
		sb.WriteString("\n")
	}
	ix, err := s.LoadIndex(device)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	states, _, err := ix.LoadKeys(ix.Keys)
	if err != nil {
		t.Fatal(err)
	}
	var ib strings.Builder
	fmt.Fprintf(&ib, "defs %v streams map[", ix.WindowDefs)
	for i, st := range ix.Streams {
		if i > 0 {
			ib.WriteString(" ")
		}
		fmt.Fprintf(&ib, "%s:%v", st.Stream, st.State)
	}
	ib.WriteString("]\n")
	for i, k := range states {
		if k == nil {
			t.Errorf("the index lists %v, which has no state", ix.Keys[i])
			continue
		}
		fmt.Fprintf(&ib, "%s/%s wm %d:", k.Window, k.Key, k.Watermark)
		for _, w := range k.Windows {
			fmt.Fprintf(&ib, " %d=%s", w.Start, w.State)
		}
		ib.WriteString("\n")
	}
	if sb.String() != ib.String() {
		t.Errorf("LoadDevice reads\n%s\nthe index and LoadKeys read\n%s", sb.String(), ib.String())
	}
	return sb.String()
}

func commitFunc(t testing.TB, s *Store, f func(b *Batch)) {
	t.Helper()
	b := s.NewBatch()
	f(b)
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// stateThenChanges commits a state and checkpoints it, then commits changes of every
// kind over it that stay in the log: puts and deletes of windows, new valves, streams
// and keys, a key changed twice.
func stateThenChanges(t testing.TB, s *Store) {
	commitFunc(t, s, func(b *Batch) {
		b.PutWindowDef("dev", "1m", []byte("def"))
		b.PutStream("dev", "s", watermark.GeneratorState{Max: 10})
		b.PutValve("dev", "1m", "a", 5, nil)
		b.PutWindow(WindowKey{"dev", "1m", "a", 0}, []byte("a0"))
		b.PutWindow(WindowKey{"dev", "1m", "a", 60}, []byte("a60"))
		b.PutWindow(WindowKey{"dev", "1m", "gone", 0}, []byte("g0"))
	})
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	commitFunc(t, s, func(b *Batch) {
		b.DeleteWindow(WindowKey{"dev", "1m", "a", 0})
		b.PutWindow(WindowKey{"dev", "1m", "a", 120}, []byte("a120"))
		b.PutValve("dev", "1m", "a", 6, nil)
		b.PutWindow(WindowKey{"dev", "1m", "b", -60}, []byte("b-60"))
		b.PutStream("dev", "t", watermark.GeneratorState{Max: 3})
	})
	commitFunc(t, s, func(b *Batch) {
		b.PutWindow(WindowKey{"dev", "1m", "a", 60}, []byte("a60'"))
		b.DeleteWindow(WindowKey{"dev", "1m", "gone", 0})
		b.PutStream("dev", "s", watermark.GeneratorState{Max: 20})
		b.PutValve("dev", "1m", "a", 7, nil)
	})
}

const wantChanged = `defs map[1m:[100 101 102]] streams map[s:{20 0 0 false false} t:{3 0 0 false false}]
1m/a wm 7: 60=a60' 120=a120
1m/b wm -9223372036854775808: -60=b-60
`

func TestReadsOverlayTheLogTailOnTheStoredKeys(t *testing.T) {
	s := openStore(t, Options{Durability: Memory})
	stateThenChanges(t, s)
	if got := render(t, s, "dev"); got != wantChanged {
		t.Errorf("with the changes in the log:\n%s\nwant\n%s", got, wantChanged)
	}
	if st, ok, err := s.LoadStream("dev", "s"); err != nil || !ok || st.Max != 20 {
		t.Errorf("LoadStream = %v, %v, %v; want the logged state", st, ok, err)
	}
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if got := render(t, s, "dev"); got != wantChanged {
		t.Errorf("checkpointed:\n%s\nwant\n%s", got, wantChanged)
	}
	if n := countLog(t, s); n != 0 {
		t.Errorf("%d log entries are left after a checkpoint", n)
	}
}

func countLog(t testing.TB, s *Store) (n int) {
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagLog}})
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

// A crash after commits went into the log and before a checkpoint: the restart
// replays the log over the stored keys.
func TestARestartReplaysTheLogTailItFinds(t *testing.T) {
	s := openStore(t, Options{})
	stateThenChanges(t, s)
	crashed := openStore(t, Options{Dir: copyDir(t, s.where)})
	if got := render(t, crashed, "dev"); got != wantChanged {
		t.Errorf("after a crash:\n%s\nwant\n%s", got, wantChanged)
	}
	if n := countLog(t, crashed); n != 2 {
		t.Errorf("the restarted store holds %d log entries, want the 2 not checkpointed", n)
	}
	commitFunc(t, crashed, func(b *Batch) { b.PutValve("dev", "1m", "a", 8, nil) })
	if err := crashed.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(wantChanged, "wm 7", "wm 8", 1)
	if got := render(t, reopen(t, crashed, Options{}), "dev"); got != want {
		t.Errorf("after the next commit and a checkpoint:\n%s\nwant\n%s", got, want)
	}
}

// A checkpoint cut short at any point leaves a store that restarts to the same state.
func TestAnInterruptedCheckpointLosesNothing(t *testing.T) {
	for _, stage := range []string{"some keys written", "all keys written", "oldest log entry deleted"} {
		t.Run(stage, func(t *testing.T) {
			s := openStore(t, Options{})
			stateThenChanges(t, s)
			// What checkpoint does, stopped part way.
			w := s.newTxnWriter()
			n := 0
			for _, m := range s.tail {
				for k, v := range m.vals {
					if n++; stage == "some keys written" && n > 3 {
						break
					}
					if err := w.write([]byte(k), v); err != nil {
						t.Fatal(err)
					}
				}
			}
			if stage == "oldest log entry deleted" {
				if err := w.write(logKey(s.logFirst), tailVal{del: true}); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.flush(); err != nil {
				t.Fatal(err)
			}
			crashed := openStore(t, Options{Dir: copyDir(t, s.where)})
			if got := render(t, crashed, "dev"); got != wantChanged {
				t.Errorf("after the crash:\n%s\nwant\n%s", got, wantChanged)
			}
		})
	}
}

// Commits past the byte threshold checkpoint the log by themselves.
func TestALongLogIsCheckpointed(t *testing.T) {
	s := openStore(t, Options{})
	val := []byte(strings.Repeat("v", 1000))
	for i := range checkpointBytes/(100*len(val)) + 2 {
		commitFunc(t, s, func(b *Batch) {
			for k := range 100 {
				b.PutWindow(WindowKey{"dev", "1m", fmt.Sprint(k), int64(i)}, val)
				if i > 0 {
					b.DeleteWindow(WindowKey{"dev", "1m", fmt.Sprint(k), int64(i - 1)})
				}
			}
		})
	}
	if s.logFirst == 1 {
		t.Fatalf("no checkpoint after %d bytes of log", s.logBytes)
	}
	ds, err := s.LoadDevice("dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Keys) != 100 || len(ds.Keys[0].Windows) != 1 {
		t.Errorf("%d keys, the first with %d windows; want 100 with one each", len(ds.Keys), len(ds.Keys[0].Windows))
	}
}

func TestDeletingAWindowAlsoDeletesWhatIsOnlyInTheLog(t *testing.T) {
	s := openStore(t, Options{})
	stateThenChanges(t, s)
	if _, err := s.DeleteWindowState("dev", "1m"); err != nil {
		t.Fatal(err)
	}
	want := "defs map[] streams map[s:{20 0 0 false false} t:{3 0 0 false false}]\n"
	if got := render(t, reopen(t, s, Options{}), "dev"); got != want {
		t.Errorf("after DeleteWindowState and a restart:\n%s\nwant\n%s", got, want)
	}
}
