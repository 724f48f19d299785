package persist

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// commitN commits n window definitions.
func commitN(t testing.TB, s *Store, n int) {
	t.Helper()
	for i := range n {
		b := s.NewBatch()
		b.PutWindowDef("dev", fmt.Sprintf("w%d", i), []byte("def"))
		if err := s.Commit(b); err != nil {
			t.Fatalf("Commit: %v", err)
		}
	}
}

// copyDir copies the files of src into a new directory, as a crash leaves them when
// src is open (Badger's files are mmapped, so reads see what it wrote).
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func names(t testing.TB, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return strings.Join(out, " ")
}

func wantDamaged(t testing.TB, dir string, o Options, want string) {
	t.Helper()
	before := names(t, dir)
	o.Dir = dir
	s, err := Open(o)
	if err == nil {
		s.Close()
		t.Fatalf("Open succeeded; want it refused for %q", want)
	}
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v\nwant ErrDamaged naming %s and %q", err, dir, want)
	}
	if after := names(t, dir); after != before {
		t.Errorf("refused Open changed the directory:\nbefore %s\nafter  %s", before, after)
	}
}

func TestReopeningAfterACleanCloseKeepsTheCommitCount(t *testing.T) {
	s := openStore(t, Options{})
	commitN(t, s, 5)
	s = reopen(t, s, Options{})
	if s.commits != 5 {
		t.Errorf("commits after reopen = %d, want 5", s.commits)
	}
	m, _, ok, err := readMarker(s.where)
	if err != nil || !ok || m.Seq != 5 || m.Clean {
		t.Errorf("marker of an open store = %+v, %v, %v; want seq 5, not clean", m, ok, err)
	}
}

func TestAMissingManifestIsRefused(t *testing.T) {
	s := openStore(t, Options{memTableSize: 1 << 20})
	commitN(t, s, 2000)
	dir := s.where
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	wantDamaged(t, dir, Options{}, "MANIFEST is missing")
	wantDamaged(t, dir, Options{ReadOnly: true}, "MANIFEST is missing")
}

func TestAStoreThatWentBackwardsIsRefused(t *testing.T) {
	s := openStore(t, Options{})
	commitN(t, s, 3)
	s = reopen(t, s, Options{})
	old := copyDir(t, s.where)
	commitN(t, s, 3)
	dir := s.where
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The older copy of the store with today's marker: a restored snapshot that
	// lost the last commits.
	data, err := os.ReadFile(filepath.Join(dir, MarkerName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, MarkerName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	wantDamaged(t, old, Options{}, "went backwards: it holds 3 commits, but 6")
	wantDamaged(t, old, Options{ReadOnly: true}, "went backwards: it holds 3 commits, but 6")
}

func TestAWriteAheadLogDamagedInTheMiddleIsRefused(t *testing.T) {
	crashed, wal, data, sc := crashedWAL(t)
	intact := copyDir(t, crashed)
	mid := sc.kept / 2
	for i := mid; i < mid+8; i++ {
		data[i] ^= 0xff
	}
	if err := os.WriteFile(wal, data, 0o644); err != nil {
		t.Fatal(err)
	}
	wantDamaged(t, crashed, Options{}, "write-ahead log")
	wantDamaged(t, crashed, Options{ReadOnly: true}, "write-ahead log")

	// The same log as a crash leaves it opens, with every commit.
	wantOpens(t, intact, 200)
}

// wantOpens opens the store in dir as a restart after a crash would and checks that
// it holds commits commits.
func wantOpens(t *testing.T, dir string, commits uint64) {
	t.Helper()
	r, err := Open(Options{Dir: dir, memTableSize: 4 << 20})
	if err != nil {
		t.Fatalf("opening a crashed store: %v", err)
	}
	defer r.Close()
	if r.commits != commits {
		t.Errorf("commits after the crash = %d, want %d", r.commits, commits)
	}
}

func TestReadOnlyOpenOfADirectoryWithoutStateCreatesNothing(t *testing.T) {
	parent := t.TempDir()
	for _, dir := range []string{filepath.Join(parent, "typo"), parent} {
		s, err := Open(Options{Dir: dir, ReadOnly: true})
		if err == nil {
			s.Close()
			t.Fatalf("read-only Open of %s succeeded", dir)
		}
		if !errors.Is(err, ErrNoState) {
			t.Errorf("error = %v, want ErrNoState", err)
		}
	}
	if got := names(t, parent); got != "" {
		t.Errorf("read-only Open created %q", got)
	}
}

func TestABadgerPanicInAStoreCallBecomesAnErrorNamingTheDirectory(t *testing.T) {
	s := openStore(t, Options{})
	err := func() (err error) {
		defer s.recovered("loading device \"dev\"", &err)
		panic("runtime error: slice bounds out of range [:4102] with capacity 4096\n== Recovered ==")
	}()
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), s.where) || strings.Contains(err.Error(), "Recovered") {
		t.Errorf("error = %v; want ErrDamaged naming %s with the panic's first line", err, s.where)
	}
}

// Go's memmove stores the first 32 bytes of a copy over 256 bytes after the rest
// (runtime/memmove_amd64.s, avxUnaligned), so kill -9 during Badger's copy of a
// large entry into its log can leave the entry's body without its header. Badger
// stops its replay at the zero header, and nothing acknowledged follows it.
func TestAWriteAheadLogTornInsideALargeEntryOpensWithEveryCommit(t *testing.T) {
	for _, body := range []int{300, 4 << 10, 1 << 20} {
		t.Run(fmt.Sprint(body), func(t *testing.T) {
			crashed, wal, data, sc := crashedWAL(t)
			for i := sc.kept + 32; i < sc.kept+32+body; i++ {
				data[i] = byte(i%251) | 1
			}
			if err := os.WriteFile(wal, data, 0o644); err != nil {
				t.Fatal(err)
			}
			wantOpens(t, crashed, 200)
		})
	}
}

// A torn write spans one entry at most; more data after the stop, or a whole entry
// among it, is damage that Badger would drop.
func TestAWriteAheadLogWithMoreThanATornEntryAfterTheStopIsRefused(t *testing.T) {
	tests := []struct {
		name   string
		damage func(data []byte, sc walScan)
	}{
		{"non-zero bytes beyond the largest entry", func(data []byte, sc walScan) {
			data[sc.kept+walMaxEntry+100] = 1
		}},
		{"a whole entry after a torn one", func(data []byte, sc walScan) {
			// The log's first entries, copied behind the tear.
			copy(data[sc.kept+500:], data[walHeaderSize:walHeaderSize+400])
			data[sc.kept+40] = 7
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crashed, wal, data, sc := crashedWAL(t)
			tt.damage(data, sc)
			if err := os.WriteFile(wal, data, 0o644); err != nil {
				t.Fatal(err)
			}
			wantDamaged(t, crashed, Options{memTableSize: 4 << 20}, "write-ahead log")
			wantDamaged(t, crashed, Options{memTableSize: 4 << 20, ReadOnly: true}, "write-ahead log")
		})
	}
}

// crashedWAL commits 200 times and returns a copy of the store as kill -9 leaves
// it, its write-ahead log's path and bytes, and the log's scan.
func crashedWAL(t *testing.T) (dir, wal string, data []byte, sc walScan) {
	t.Helper()
	s := openStore(t, Options{memTableSize: 4 << 20})
	commitN(t, s, 200)
	dir = copyDir(t, s.where)
	for _, n := range strings.Fields(names(t, dir)) {
		if strings.HasSuffix(n, ".mem") {
			wal = filepath.Join(dir, n)
		}
	}
	data, err := os.ReadFile(wal)
	if err != nil {
		t.Fatal(err)
	}
	sc = scanWAL(data, commitKey)
	if sc.seq != 200 || sc.more || len(data) < sc.kept+walMaxEntry+200 {
		t.Fatalf("scan of an intact log: %+v of %d bytes; want seq 200, nothing after, and room for a torn entry", sc, len(data))
	}
	return dir, wal, data, sc
}

// Badger deletes a flushed memtable's log by truncating it, then removing it, and
// creates one by creating it, then sizing it: kill -9 between the two leaves an empty
// log, which Badger then refused to open ("Create a new file"), so edged could not
// start (seen in the kill -9 suite). An empty log holds nothing and is removed.
func TestAnEmptyWriteAheadLogLeftByACrashIsRemoved(t *testing.T) {
	crashed, wal, _, _ := crashedWAL(t)
	fid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(wal), ".mem"))
	if err != nil {
		t.Fatal(err)
	}
	var empties []string
	for _, id := range []int{fid - 1, fid + 1} { // a deletion and a creation cut short
		p := filepath.Join(crashed, fmt.Sprintf("%05d.mem", id))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		empties = append(empties, p)
	}
	wantOpens(t, crashed, 200)
	for _, p := range empties {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: stat says %v; want the empty log removed", filepath.Base(p), err)
		}
	}
}

// TestTheMarkerWrittenThroughItsMappingIsWhatTheFileHolds writes records through the
// marker's mapping and reads the file as the next start would, while it is still
// open: each time it finds the newest record, in the slot the writes alternate to.
func TestTheMarkerWrittenThroughItsMappingIsWhatTheFileHolds(t *testing.T) {
	dir := t.TempDir()
	mf, err := openMarker(dir, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= 5; seq++ {
		if err := mf.write(marker{Seq: seq, Boot: "boot"}, seq == 5); err != nil {
			t.Fatal(err)
		}
		m, gen, ok, err := readMarker(dir)
		if err != nil || !ok || m.Seq != seq || gen != seq || m.Boot != "boot" {
			t.Fatalf("after writing seq %d: read %+v gen %d ok %v err %v", seq, m, gen, ok, err)
		}
	}
	if err := mf.close(); err != nil {
		t.Fatal(err)
	}
	mf, err = openMarker(dir, 5, false) // the file exists at its full size now
	if err != nil {
		t.Fatal(err)
	}
	defer mf.close()
	if err := mf.write(marker{Seq: 6, Clean: true}, false); err != nil {
		t.Fatal(err)
	}
	if m, gen, _, err := readMarker(dir); err != nil || m.Seq != 6 || !m.Clean || gen != 6 {
		t.Fatalf("after reopening: read %+v gen %d err %v", m, gen, err)
	}
}
