package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged/edged/internal/fleet"
)

// A device that came from the fleet bucket is configured, though no local file
// names it: prune keeps its state, and refuses when it cannot tell.
func TestPruneKeepsTheDevicesOfTheFleetCopy(t *testing.T) {
	data := inspectFixture(t) // device "dev"
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "devices"), 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "edged.yaml")
	if err := os.WriteFile(config, []byte("data_dir: "+data+"\nbroker: {url: tcp://127.0.0.1:1883}\n"+
		"fleet: {kv: {url: nats://127.0.0.1:1, host: gw}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	copyOf := func(host string) {
		t.Helper()
		dev := strings.Replace(plValidDevice, "device: d\n", "device: dev\n", 1)
		if err := fleet.WriteCopy(data, &fleet.Copy{Bucket: "edged-fleet", Prefix: "edged", Host: host, Revision: 7,
			Files: []fleet.Entry{{Key: "edged.gw.devices.dev.yaml", Revision: 7, Data: dev}}}); err != nil {
			t.Fatal(err)
		}
	}
	copyOf("gw")
	var out bytes.Buffer
	if err := pruneCmd([]string{"--config", config, "--dry-run"}, &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	if strings.Contains(out.String(), "would delete") {
		t.Errorf("prune would delete a fleet device:\n%s", out.String())
	}
	copyOf("another-gateway")
	out.Reset()
	err := pruneCmd([]string{"--config", config, "--dry-run"}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "cannot tell which devices the fleet bucket configures") {
		t.Errorf("prune with another gateway's copy: %v\n%s", err, out.String())
	}
}
