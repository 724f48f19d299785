package persist

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
)

// Badger writes its write-ahead log and its tables through shared file mappings.
// The patched copy releases the pages it wrote (z.ReleasePages): the log's a
// megabyte at a time, a table's once it is open. Left mapped, they stayed in the
// process's resident set, up to two memtables' logs and every table a flush or
// compaction had just built.
func TestWrittenLogAndTablePagesDoNotStayResident(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/smaps")
	}
	s := openStore(t, Options{Durability: Process})
	state := make([]byte, 512)
	commit := func(round int) {
		b := s.NewBatch()
		for k := range 1000 {
			b.PutWindow(WindowKey{"dev", "w", "sensor-" + strconv.Itoa(k), int64(round) * 10_000}, state)
			b.EndUnit()
		}
		if err := s.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 { // about 1.7 MB of log: under one 2 MB memtable
		commit(round)
	}
	if rss, size := resident(t, s.where, ".mem"); rss > 1100<<10 {
		t.Errorf("the write-ahead log has %d of its %d mapped bytes resident; want at most the last megabyte", rss, size)
	}
	// A table is mapped while it is written and checked, and released once open:
	// wait for that, filling memtables until the first flush.
	deadline := time.Now().Add(30 * time.Second)
	for round := 3; ; {
		rss, size := resident(t, s.where, ".sst")
		if size > 0 && rss <= size/10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tables have %d of their %d mapped bytes resident 30s after the store began filling memtables; want their pages released once open", rss, size)
		}
		if size == 0 {
			commit(round)
			round++
		} else {
			time.Sleep(10 * time.Millisecond) // the flush is on Badger's goroutine
		}
	}
}

// A compaction reads each input table once from start to end (a NOCACHE iterator);
// the patched Badger releases what it read past, a megabyte at a time, where those
// pages stayed resident until the table was deleted.
func TestAReadThroughATableForCompactionReleasesWhatItRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/smaps")
	}
	dir := t.TempDir()
	b := table.NewTableBuilder(table.Options{BlockSize: 4 << 10, TableSize: 8 << 20, BloomFalsePositive: 0.01})
	value := make([]byte, 200)
	for i := range 20_000 { // about 4.5 MB
		b.Add(y.KeyWithTs(fmt.Appendf(nil, "key-%08d", i), 1), y.ValueStruct{Value: value}, 0)
	}
	tbl, err := table.CreateTable(filepath.Join(dir, "1.sst"), b)
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.DecrRef()
	it := tbl.NewIterator(table.NOCACHE)
	n := 0
	for it.Rewind(); it.Valid(); it.Next() {
		n++
	}
	it.Close()
	if n != 20_000 {
		t.Fatalf("read %d keys, want 20000", n)
	}
	if rss, size := resident(t, dir, ".sst"); rss > 1200<<10 {
		t.Errorf("after reading the table through, %d of its %d mapped bytes are resident; want at most the last megabyte", rss, size)
	}
}

// resident sums the resident and the mapped bytes of this process's mappings of
// files in dir whose names end in suffix.
func resident(t *testing.T, dir, suffix string) (rss, size int64) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	counting := false
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") { // a mapping's header line
			path := fields[len(fields)-1]
			counting = len(fields) >= 6 && filepath.Dir(path) == dir && strings.HasSuffix(path, suffix)
			continue
		}
		if !counting || len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(fields[1], 10, 64)
		switch fields[0] {
		case "Size:":
			size += kb << 10
		case "Rss:":
			rss += kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rss, size
}
