package persist

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/edged/edged/testing/dirsnap"
)

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
	before := dirsnap.Take(t, dir)

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
	before.Unchanged(t, dirsnap.Take(t, dir))
	if _, err := Open(Options{Dir: filepath.Join(dir, "missing"), ReadOnly: true}); err == nil {
		t.Error("a read-only open created a directory")
	}
}

// A store its last writer did not close (a copy of an open store is what kill -9
// leaves) opens read-only as the next start will recover it, write-ahead logs
// replayed in memory, says that it was not closed, and keeps every file as it was,
// a table Badger would delete included.
func TestReadOnlyOpenOfAStoreLeftOpenReadsWhatARestartRecoversAndChangesNothing(t *testing.T) {
	tests := []struct {
		name  string
		crash func(t *testing.T) (dir string, commits uint64, windows int)
	}{{
		name: "logs only",
		crash: func(t *testing.T) (string, uint64, int) {
			s := openStore(t, Options{})
			commitN(t, s, 3)
			return copyDir(t, s.where), 3, 3
		},
	}, {
		name: "tables beside the logs",
		crash: func(t *testing.T) (string, uint64, int) {
			s := openStore(t, Options{})
			commitN(t, s, 2) // Close flushes them to a table
			s = reopen(t, s, Options{})
			commitN(t, s, 3)
			return copyDir(t, s.where), 5, 3
		},
	}, {
		name: "the empty log a writer opens at start",
		crash: func(t *testing.T) (string, uint64, int) {
			s := openStore(t, Options{})
			commitN(t, s, 2)
			s = reopen(t, s, Options{})
			return copyDir(t, s.where), 2, 2
		},
	}, {
		name: "a table an interrupted flush left out of the MANIFEST",
		crash: func(t *testing.T) (string, uint64, int) {
			s := openStore(t, Options{})
			commitN(t, s, 2)
			s = reopen(t, s, Options{})
			commitN(t, s, 3)
			dir := copyDir(t, s.where)
			table, err := os.ReadFile(filepath.Join(dir, "000001.sst"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "000009.sst"), table, 0o644); err != nil {
				t.Fatal(err)
			}
			return dir, 5, 3
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, commits, windows := tc.crash(t)
			before := dirsnap.Take(t, dir)
			var logged bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn}))
			ro, err := Open(Options{Dir: dir, ReadOnly: true, Logger: log})
			if err != nil {
				t.Fatalf("read-only open of a crashed store: %v", err)
			}
			st, err := ro.LoadDevice("dev")
			if err != nil {
				t.Fatal(err)
			}
			if !ro.NotClosedCleanly() || ro.commits != commits || len(st.WindowDefs) != windows {
				t.Errorf("not closed cleanly %v, %d commits, %d window definitions; want true, %d, %d",
					ro.NotClosedCleanly(), ro.commits, len(st.WindowDefs), commits, windows)
			}
			if err := ro.Close(); err != nil {
				t.Fatal(err)
			}
			if logged.Len() > 0 {
				t.Errorf("the read-only open logged:\n%s", logged.String())
			}
			before.Unchanged(t, dirsnap.Take(t, dir))

			// What a restart recovers is what the read-only open showed.
			rw := openStore(t, Options{Dir: dir})
			if st, err := rw.LoadDevice("dev"); err != nil || rw.commits != commits || len(st.WindowDefs) != windows {
				t.Errorf("after a restart: %d commits, %v", rw.commits, err)
			}
			if rw.NotClosedCleanly() {
				t.Error("a writable store reports its last writer's crash")
			}
		})
	}
}
