package persist

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
)

// The patched Badger streams a table to its file block by block (Builder.StreamTo)
// instead of holding the whole table in memory until CreateTable copies it out.
// The file must be the table an in-memory build gives, byte for byte, and it must be
// on disk while the builder still fills it.
func TestAStreamedTableIsTheTableBuiltInMemory(t *testing.T) {
	opts := table.Options{BlockSize: 4 << 10, TableSize: 8 << 20, BloomFalsePositive: 0.01}
	const n = 20_000
	add := func(b *table.Builder, i int) {
		value := bytes.Repeat([]byte{byte(i)}, 200)
		if i%5_000 == 7 {
			value = bytes.Repeat([]byte{byte(i)}, 3*opts.BlockSize) // a block grows past its buffer
		}
		key := y.KeyWithTs(fmt.Appendf(nil, "key-%08d", i), uint64(i%3+1))
		if i%2 == 0 {
			b.AddStaleKey(key, y.ValueStruct{Value: value, Meta: byte(i)}, 0)
		} else {
			b.Add(key, y.ValueStruct{Value: value, UserMeta: byte(i)}, 0)
		}
	}

	inMemory := table.NewTableBuilder(opts)
	for i := range n {
		add(inMemory, i)
	}
	want := inMemory.Finish()
	inMemory.Close()

	fname := filepath.Join(t.TempDir(), table.IDToFilename(1))
	streamed := table.NewTableBuilder(opts)
	streamed.StreamTo(fname)
	for i := range n {
		add(streamed, i)
	}
	if fi, err := os.Stat(fname); err != nil || fi.Size() < int64(len(want))-256<<10 {
		t.Fatalf("before CreateTable, the table file is %v (error %v); want most of the table's %d bytes written",
			sizeOf(fi), err, len(want))
	}
	tbl, err := table.CreateTable(fname, streamed)
	streamed.Close() // must not remove the file of an opened table
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.DecrRef()
	got, err := os.ReadFile(fname)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the streamed table (%d bytes) differs from the one built in memory (%d bytes)", len(got), len(want))
	}
	it := tbl.NewIterator(0)
	defer it.Close()
	count := 0
	for it.Rewind(); it.Valid(); it.Next() {
		count++
	}
	if count != n || tbl.KeyCount() != n {
		t.Fatalf("the opened table iterates %d keys and counts %d; want %d", count, tbl.KeyCount(), n)
	}
}

// A streaming builder that is closed without CreateTable (a compaction that gave
// up, a flush that failed) leaves no file behind, and an empty one never makes one.
func TestAnAbandonedStreamedTableLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	opts := table.Options{BlockSize: 4 << 10, TableSize: 8 << 20}

	abandoned := table.NewTableBuilder(opts)
	abandoned.StreamTo(filepath.Join(dir, table.IDToFilename(1)))
	for i := range 5_000 {
		abandoned.Add(y.KeyWithTs(fmt.Appendf(nil, "key-%08d", i), 1), y.ValueStruct{Value: make([]byte, 100)}, 0)
	}
	if _, err := os.Stat(filepath.Join(dir, table.IDToFilename(1))); err != nil {
		t.Fatalf("the builder has not streamed its first blocks: %v", err)
	}
	abandoned.Close()

	empty := table.NewTableBuilder(opts)
	empty.StreamTo(filepath.Join(dir, table.IDToFilename(2)))
	if !empty.Empty() {
		t.Fatal("a new builder is not empty")
	}
	empty.Close()

	for _, id := range []uint64{1, 2} {
		if _, err := os.Stat(filepath.Join(dir, table.IDToFilename(id))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: stat says %v; want it gone", table.IDToFilename(id), err)
		}
	}
}

func sizeOf(fi os.FileInfo) string {
	if fi == nil {
		return "missing"
	}
	return fmt.Sprintf("%d bytes", fi.Size())
}
