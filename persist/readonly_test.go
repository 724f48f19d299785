package persist

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// dirDigest is every file's name and content hash in dir.
func dirDigest(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReadOnlyOpenReadsAndChangesNothing(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, Options{Dir: dir})
	b := s.NewBatch()
	b.PutWindowDef("dev", "1m", []byte("def"))
	if err := s.Commit(b); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Options{Dir: dir, ReadOnly: true}); !errors.Is(err, ErrLocked) {
		t.Fatalf("read-only open while edged holds the directory: %v, want ErrLocked", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirDigest(t, dir)

	ro, err := Open(Options{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ro.LoadDevice("dev")
	if err != nil || string(st.WindowDefs["1m"]) != "def" {
		t.Fatalf("read back %q, %v", st.WindowDefs["1m"], err)
	}
	b = ro.NewBatch()
	b.PutWindowDef("dev", "5m", []byte("x"))
	if err := ro.Commit(b); err == nil {
		t.Error("a read-only store committed")
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	after := dirDigest(t, dir)
	if len(before) != len(after) {
		t.Fatalf("files %d before, %d after", len(before), len(after))
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed", p)
		}
	}
	if _, err := Open(Options{Dir: filepath.Join(dir, "missing"), ReadOnly: true}); err == nil {
		t.Error("a read-only open created a directory")
	}
}
