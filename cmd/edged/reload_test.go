package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWatchDevicesReportsAChangedDeviceFileOnceItIsQuiet(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := watchDevices(ctx, dir, slog.New(slog.NewTextHandler(io.Discard, nil)))
	// A burst of writes, as a deploy tool makes: one report after it.
	start := time.Now()
	for _, name := range []string{"a.yaml", "b.yml", "a.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("device: x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-changed:
		if waited := time.Since(start); waited < reloadDebounce {
			t.Errorf("reported after %s, before the debounce of %s", waited, reloadDebounce)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no report 10 s after device files changed")
	}
}

func TestIsDeviceFileIgnoresEditorFiles(t *testing.T) {
	for name, want := range map[string]bool{
		"/d/boiler.yaml": true, "/d/boiler.yml": true, "/d/.boiler.yaml.swp": false,
		"/d/.#boiler.yaml": false, "/d/boiler.yaml~": false, "/d/notes.txt": false,
		"/d/..data": true, "/d/..2026_12_04_08_00_00.123": false,
	} {
		if got := isDeviceFile(name); got != want {
			t.Errorf("isDeviceFile(%q) = %v, want %v", name, got, want)
		}
	}
}
