package harness

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/testing/broker"
)

// Edged is an in-process daemon under test.
type Edged struct {
	*actors.Daemon
	Dir    string
	Config *configs.Daemon
	logs   *broker.SyncBuffer
}

// WriteConfig writes a daemon file (daemonYAML) and device files into a new temp dir
// and returns the daemon file's path. The daemon file should not set devices_dir.
func WriteConfig(t testing.TB, daemonYAML string, devices map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "devices"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range devices {
		if err := os.WriteFile(filepath.Join(dir, "devices", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "edged.yaml")
	if err := os.WriteFile(path, []byte(daemonYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Start loads the config at path and starts the daemon; the test stops it at cleanup
// and prints its log if the test failed.
func Start(t testing.TB, path string) *Edged {
	t.Helper()
	cfg, err := configs.Load(path)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	logs := &broker.SyncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := actors.Start(ctx, cfg, log)
	if err != nil {
		t.Fatalf("starting edged: %v\n%s", err, logs.String())
	}
	e := &Edged{Daemon: d, Dir: filepath.Dir(path), Config: cfg, logs: logs}
	t.Cleanup(func() {
		_ = d.Stop(10 * time.Second)
		if t.Failed() {
			t.Logf("edged log:\n%s", logs.String())
		}
	})
	return e
}

// Logs returns what the daemon logged so far.
func (e *Edged) Logs() string { return e.logs.String() }
