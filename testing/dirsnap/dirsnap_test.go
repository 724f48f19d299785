package dirsnap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDiffNamesWhatWasRemovedCreatedOrChanged(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("same", "a")
	write("content", "b")
	write("touched", "c")
	write("removed", "d")
	before := Take(t, dir)
	if d := before.Diff(Take(t, dir)); len(d) > 0 {
		t.Fatalf("a second snapshot of an unchanged tree differs: %v", d)
	}

	write("content", "B")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "touched"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "removed")); err != nil {
		t.Fatal(err)
	}
	write("created", "e")
	got := before.Diff(Take(t, dir))
	// The directory changed too: entries were created and removed in it.
	want := []string{
		dir + " changed: content same true",
		dir + "/content changed: content same false, size 1 -> 1",
		dir + "/created was created",
		dir + "/removed was removed",
		dir + "/touched changed: content same true, size 1 -> 1",
	}
	if len(got) != len(want) {
		t.Fatalf("differences:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("difference %d is %q, want it to start %q", i, got[i], want[i])
		}
	}
}
