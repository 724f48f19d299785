package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged/edged/persist"
	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/dirsnap"
	"github.com/edged/edged/testing/harness"
)

// After kill -9, edged inspect and edged explain show the state as the next start
// will recover it and say that it was not closed cleanly, and the data dir keeps
// every file's bytes, size, mode and modification time (and its own: no file was
// created or removed). What inspect showed is what a copy of the dir holds once a
// writable open has recovered it and closed it cleanly.
func TestInspectAndExplainOfAKilledEdgedChangeNothing(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s, coll, e := crashUp(t, bin, mq.URL(), "killed-inspect")
	events := crashEvents(13, 3000)
	var acked atomic.Int64
	pubDone := make(chan error, 1)
	go func() { pubDone <- crashPublish(t, s, events, 0, len(events), &acked) }()
	harness.Eventually(t, 30*time.Second, "results flowing", func() bool {
		r, _, _ := coll.snapshot()
		return len(r) > 100
	})
	e.kill() // while readings arrive, so the write-ahead log holds commits no table has
	if err := <-pubDone; err != nil {
		t.Fatal(err)
	}
	before := dirsnap.Take(t, s.dataDir)
	if logs, _ := filepath.Glob(filepath.Join(s.dataDir, "*.mem")); len(logs) == 0 {
		t.Fatal("the killed edged left no write-ahead log")
	}

	note := s.dataDir + " was not closed cleanly (edged was killed or lost power)"
	code, shown := crashRun(t, bin, 30*time.Second, "inspect", "--data", s.dataDir)
	if code != 0 || !strings.HasPrefix(shown, note) {
		t.Fatalf("inspect exited %d; want 0 and output starting with %q:\n%s", code, note, shown)
	}
	if n := len(crashStreamWatermarks(t, shown)); n < 100 {
		t.Errorf("inspect shows %d stream watermarks, want most of 200:\n%s", n, shown)
	}
	code, explained := crashRun(t, bin, 30*time.Second, "explain", "--data", s.dataDir, "--window", "w", "--key", "k1")
	if code != 0 || !strings.HasPrefix(explained, note) {
		t.Errorf("explain exited %d; want 0 and output starting with %q:\n%s", code, note, explained)
	}
	before.Unchanged(t, dirsnap.Take(t, s.dataDir))

	recovered := crashCopyDir(t, s.dataDir)
	store, err := persist.Open(persist.Options{Dir: recovered})
	if err != nil {
		t.Fatalf("recovering a copy of the killed state: %v", err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	code, clean := crashRun(t, bin, 30*time.Second, "inspect", "--data", recovered)
	_, rest, _ := strings.Cut(shown, "\n")
	if code != 0 || clean != rest {
		t.Errorf("inspect of the recovered copy (exit %d) differs from what it showed of the killed state:\n%s\nwant\n%s", code, clean, rest)
	}
}

// crashCopyDir copies the regular files of dir into a new directory.
func crashCopyDir(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
