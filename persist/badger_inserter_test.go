package persist

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/skl"
	"github.com/dgraph-io/badger/v4/y"
)

// The patched Badger puts a write batch into its memtable in key order through a
// skl.Inserter, which starts each search at the previous key's splice. A splice
// used where it does not hold the key would lose or misplace a key, so these check
// the skiplist and the store against a map, over sorted, unsorted and repeating
// keys.

func TestInserterKeepsEveryKeyInOrderWhateverTheOrderOfPuts(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			s := skl.NewSkiplist(8 << 20)
			defer s.DecrRef()
			want := map[string]uint64{}
			var ins skl.Inserter
			for batch := range 60 {
				keys := randomKeys(rng, 1+rng.IntN(300), 400)
				switch batch % 3 {
				case 0:
					slices.SortFunc(keys, y.CompareKeys)
				case 1: // a fresh inserter, as each write batch has
					ins = skl.Inserter{}
					slices.SortFunc(keys, y.CompareKeys)
				} // case 2: unsorted, the splices mostly do not hold the next key
				for _, k := range keys {
					v := rng.Uint64()
					s.PutWith(&ins, k, y.ValueStruct{Value: fmt.Appendf(nil, "%d", v)})
					want[string(k)] = v
				}
			}
			var got []string
			it := s.NewIterator()
			defer it.Close()
			for it.SeekToFirst(); it.Valid(); it.Next() {
				k := string(it.Key())
				if v := fmt.Sprint(want[k]); v != string(it.Value().Value) {
					t.Fatalf("key %q holds %q, want %s", k, it.Value().Value, v)
				}
				got = append(got, k)
			}
			if len(got) != len(want) {
				t.Fatalf("the list holds %d keys, want %d", len(got), len(want))
			}
			if !slices.IsSortedFunc(got, func(a, b string) int { return y.CompareKeys([]byte(a), []byte(b)) }) {
				t.Fatal("the list is out of order")
			}
		})
	}
}

// Concurrent transactions share a write batch, each with its own commit version,
// and the memtable flushes several times over.
func TestBadgerReadsBackWhatConcurrentBatchesWrote(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil).
		WithMemTableSize(1 << 20).WithValueThreshold(1 << 10).WithDetectConflicts(false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const writers = 4
	want := make([]map[string]string, writers)
	var wg sync.WaitGroup
	for w := range writers {
		want[w] = map[string]string{}
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			for round := range 40 {
				txn := db.NewTransaction(true)
				for _, k := range randomKeys(rng, 1+rng.IntN(500), 2000) {
					k = fmt.Appendf(nil, "w%d/%s", w, k)
					v := fmt.Sprintf("%d-%d", round, rng.IntN(1000))
					if err := txn.Set(k, []byte(v)); err != nil {
						t.Error(err)
						return
					}
					want[w][string(k)] = v
				}
				if err := txn.Commit(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	err = db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		n, last := 0, []byte(nil)
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			if last != nil && bytes.Compare(last, k) >= 0 {
				return fmt.Errorf("key %q after %q", k, last)
			}
			last = k
			var w int
			fmt.Sscanf(string(k), "w%d/", &w)
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if string(v) != want[w][string(k)] {
				return fmt.Errorf("key %q holds %q, want %q", k, v, want[w][string(k)])
			}
			n++
		}
		total := 0
		for _, m := range want {
			total += len(m)
		}
		if n != total {
			return fmt.Errorf("read %d keys, want %d", n, total)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// randomKeys returns n keys from a space of about space, with lengths from 1 to 12
// bytes so that some are prefixes of others, each with a version.
func randomKeys(rng *rand.Rand, n, space int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		id := rng.IntN(space)
		k := fmt.Appendf(nil, "%016x", uint64(id)*2654435761)[:1+id%12]
		keys[i] = y.KeyWithTs(k, uint64(1+rng.IntN(3)))
	}
	return keys
}
