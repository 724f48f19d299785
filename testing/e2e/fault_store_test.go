package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

// The store fault suite damages a stopped edged's Badger directory the way a
// failing SD card or a careless operator would, and checks that edged refuses to
// start on it with a message that says what to do, changes nothing in it, and
// starts empty when told so with --reset-state.
//
//	go test ./testing/e2e -run 'TestDamagedStore|TestInspect' -v

// faultReadings is enough for a few hundred windows, thousands of dedup marks and
// so a table of several blocks after the close flushes the memtable.
const faultReadings = 3000

func TestDamagedStoreIsRefusedAndResetStateStartsEmpty(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	tests := []struct {
		name   string
		kill   bool // stop with kill -9 (the write-ahead log keeps the commits) instead of SIGTERM
		damage func(t *testing.T, dir string)
		want   string
	}{
		{"a truncated MANIFEST", false, func(t *testing.T, dir string) {
			path := filepath.Join(dir, "MANIFEST")
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			faultMust(t, os.Truncate(path, st.Size()/2))
		}, "not in its MANIFEST"},
		{"a deleted MANIFEST", false, func(t *testing.T, dir string) {
			faultMust(t, os.Remove(filepath.Join(dir, "MANIFEST")))
		}, "MANIFEST is missing"},
		{"a damaged write-ahead log", true, func(t *testing.T, dir string) {
			path, size := faultBiggest(t, dir, ".mem", true)
			faultFlip(t, path, size)
		}, "write-ahead log"},
		{"a damaged table", false, func(t *testing.T, dir string) {
			path, size := faultBiggest(t, dir, ".sst", false)
			faultFlip(t, path, size)
		}, "is damaged"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, coll, e := crashUp(t, bin, mq.URL(), fmt.Sprintf("fault%d", i))
			var acked atomic.Int64
			if err := crashPublish(t, s, crashEvents(uint64(20+i), faultReadings), 0, faultReadings, &acked); err != nil {
				t.Fatal(err)
			}
			harness.Eventually(t, 30*time.Second, "results published", func() bool {
				r, _, _ := coll.snapshot()
				return len(r) > 100
			})
			if tt.kill {
				e.kill()
			} else if code := e.term(); code != 0 {
				t.Fatalf("edged exited %d after SIGTERM", code)
			}
			tt.damage(t, s.dataDir)
			before := faultFiles(t, s.dataDir)

			code, out := crashRun(t, bin, 30*time.Second, "run", "--config", s.config)
			if code != 3 {
				t.Fatalf("edged exited %d on the damaged state, want 3 (refused):\n%s", code, out)
			}
			for _, want := range []string{s.dataDir, tt.want, "restore", "--reset-state"} {
				if !strings.Contains(out, want) {
					t.Errorf("refusal lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
				t.Errorf("edged crashed instead of refusing:\n%s", out)
			}
			if after := faultFiles(t, s.dataDir); !slices.Equal(after, before) {
				t.Errorf("the refused start changed the directory:\nbefore %v\nafter  %v", before, after)
			}
			code, out = crashRun(t, bin, 30*time.Second, "inspect", "--data", s.dataDir)
			if code != 3 || !strings.Contains(out, tt.want) {
				t.Errorf("inspect exited %d on the damaged state; want 3, a refusal naming %q:\n%s", code, tt.want, out)
			}

			e.resetNext = true
			e.start()
			if line, ok := e.logs.find(0, "moved the damaged state aside"); !ok {
				t.Errorf("--reset-state did not say it moved the state aside:\n%s", e.logs.tail(30))
			} else {
				t.Log(line)
			}
			moved := faultDiscarded(t, s.dataDir)
			if got := faultFiles(t, moved); !slices.Equal(got, before) {
				t.Errorf("the state moved aside differs from the damaged state:\nmoved   %v\ndamaged %v", got, before)
			}
		})
	}
}

func TestInspectOfATypoDirectoryCreatesNothing(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	parent := t.TempDir()
	typo := filepath.Join(parent, "dta")
	code, out := crashRun(t, bin, 30*time.Second, "inspect", "--data", typo)
	if code == 0 || !strings.Contains(out, "holds no edged state") {
		t.Errorf("inspect --data %s exited %d; want a refusal saying it holds no edged state:\n%s", typo, code, out)
	}
	if _, err := os.Stat(typo); !os.IsNotExist(err) {
		t.Errorf("inspect created %s (stat: %v)", typo, err)
	}
}

func faultMust(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// faultFiles lists the files of dir (not its subdirectories) with their sizes.
func faultFiles(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	faultMust(t, err)
	var out []string
	for _, e := range entries {
		if e.IsDir() || e.Name() == "LOCK" {
			continue
		}
		info, err := e.Info()
		faultMust(t, err)
		out = append(out, fmt.Sprintf("%s:%d", e.Name(), info.Size()))
	}
	return out
}

// faultBiggest returns the file of dir with the given suffix that holds the most
// data; with used, data is what precedes the zero-filled tail Badger preallocates.
func faultBiggest(t testing.TB, dir, suffix string, used bool) (path string, size int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	faultMust(t, err)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), suffix) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		faultMust(t, err)
		n := len(data)
		if used {
			n = len(bytes.TrimRight(data, "\x00"))
		}
		if n > size {
			path, size = filepath.Join(dir, e.Name()), n
		}
	}
	if path == "" {
		t.Fatalf("no %s file with data in %s", suffix, dir)
	}
	return path, size
}

// faultFlip inverts 16 bytes in the middle of the first size bytes of path.
func faultFlip(t testing.TB, path string, size int) {
	t.Helper()
	data, err := os.ReadFile(path)
	faultMust(t, err)
	for i := size / 2; i < size/2+16; i++ {
		data[i] ^= 0xff
	}
	faultMust(t, os.WriteFile(path, data, 0o644))
	t.Logf("flipped 16 bytes at offset %d of %s (%d bytes of data)", size/2, filepath.Base(path), size)
}

// faultDiscarded returns the one directory --reset-state moved state into.
func faultDiscarded(t testing.TB, dir string) string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "discarded-*"))
	faultMust(t, err)
	if len(matches) != 1 {
		t.Fatalf("want one discarded-* directory in %s, have %v", dir, matches)
	}
	return matches[0]
}
