package persist

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDiscardMovesEverythingAsideAndTheNextOpenStartsEmpty(t *testing.T) {
	s := openStore(t, Options{})
	commitN(t, s, 3)
	dir := s.where
	if _, err := Discard(dir, time.Now()); !errors.Is(err, ErrLocked) {
		t.Errorf("Discard of an open store: %v, want ErrLocked", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files := names(t, dir)
	to, err := Discard(dir, time.Date(2026, 12, 4, 5, 30, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "discarded-20261204T053000Z"); to != want {
		t.Errorf("Discard moved to %s, want %s", to, want)
	}
	if got := names(t, to); got != files {
		t.Errorf("moved %q, want %q", got, files)
	}
	if got := names(t, dir); got != filepath.Base(to) {
		t.Errorf("left %q in the directory", got)
	}
	r := openStore(t, Options{Dir: dir})
	if devices, err := r.Devices(); err != nil || len(devices) != 0 || r.commits != 0 {
		t.Errorf("after Discard: devices %v, %v, commits %d; want an empty store", devices, err, r.commits)
	}
	if !strings.Contains(names(t, dir), filepath.Base(to)) {
		t.Errorf("the discarded state is gone after the next open: %s", names(t, dir))
	}
}
