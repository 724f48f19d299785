package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

func TestPruneDeletesOnlyDevicesNoLongerConfigured(t *testing.T) {
	data := inspectFixture(t) // device "dev", with a result in its outbox
	store, err := persist.Open(persist.Options{Dir: data})
	if err != nil {
		t.Fatal(err)
	}
	b := store.NewBatch()
	b.PutStream("keep", "k/1", watermark.GeneratorState{Seen: true})
	if err := store.Commit(b); err != nil {
		t.Fatal(err)
	}
	store.Close()

	dir := t.TempDir()
	config := filepath.Join(dir, "edged.yaml")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(config, "data_dir: "+data+"\ndevices_dir: devices\nbroker: {url: tcp://127.0.0.1:1883}\n")
	write(filepath.Join(dir, "devices", "keep.yaml"), `device: keep
streams:
  - {name: s, topic: k/+, timestamp: {field: ts, unit: ms}}
windows:
  - {name: w, stream: s, type: tumbling, size: 1s, aggregates: [count]}
`)

	var out bytes.Buffer
	if err := pruneCmd([]string{"--config", config, "--dry-run"}, &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	if !strings.Contains(out.String(), "would delete device dev: its windows, watermarks and 1 unsent outbox records") {
		t.Errorf("dry run said:\n%s", out.String())
	}
	out.Reset()
	if err := pruneCmd([]string{"--config", config}, &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	if !strings.Contains(out.String(), "deleted device dev") || strings.Contains(out.String(), "keep") {
		t.Errorf("prune said:\n%s", out.String())
	}
	store, err = persist.Open(persist.Options{Dir: data})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if devs, err := store.Devices(); err != nil || !reflect.DeepEqual(devs, []string{"keep"}) {
		t.Errorf("devices after prune: %v, %v; want only keep", devs, err)
	}
	if n := store.Stats("res/dev").Records; n != 0 {
		t.Errorf("the pruned device's outbox still holds %d records", n)
	}
}
