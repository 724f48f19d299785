package actors

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/edged/edged/configs"
)

const readyDevice = `
device: d
streams:
  - name: s
    topic: edged-ready-test/+
    qos: 0
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 1h
    aggregates: [count, sum(v)]
`

// /healthz must not say ready while a device cannot take messages yet: they wait,
// and an orchestrator that routes traffic or a check that gates the next rollout step
// on 200 would be told a restart is done too early. With many open windows reading
// the saved state outlasts the broker connection, so the first ok Health must come
// after every saved key is known again: counted (against the key limit too) and
// restored before any message of it, if its turn in the background has not come.
func TestHealthIsNotOkUntilEveryDeviceIsRestored(t *testing.T) {
	const keys = 30_000
	d := startWithOpenKeys(t, keys)
	t.Cleanup(func() { _ = d.Stop(10 * time.Second) })
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, status := d.Health()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not healthy within 60s: %s", status)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, with the deadline above
	}
	var g dto.Metric
	if err := d.Metrics().Keys.WithLabelValues("d", "w").Write(&g); err != nil {
		t.Fatal(err)
	}
	if got := int(g.GetGauge().GetValue()); got != keys {
		t.Errorf("Health said ok with %d of %d saved keys restored", got, keys)
	}
}

// Stop closes the store only once no actor can read or write it: a device still
// restoring its keys read them from Badger while the store was closed under it (the
// race detector saw a table unmapped during a read), since shutting the actor system
// down only stops new spawns.
func TestStopDuringARestoreStopsEveryActorBeforeTheStoreCloses(t *testing.T) {
	d := startWithOpenKeys(t, 30_000)
	if ok, _ := d.Health(); ok {
		t.Skip("the restore ended before Stop; nothing to check")
	}
	if err := d.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if dev := d.topo.stoppedDevice(); dev != "d" {
		t.Error("device d's pipeline still runs after Stop returned")
	}
	if _, ok := d.topo.system.ProcessRegistry.GetLocal(d.topo.env.sink.Id); ok {
		t.Error("the sink still runs after Stop returned")
	}
}

// readyConfig is a daemon config on a fresh data dir with readyDevice, up to keys
// keys per window and the local Mosquitto as its broker.
func readyConfig(t *testing.T, keys int) *configs.Daemon {
	t.Helper()
	dev, err := configs.ParseDevice("dev.yaml", []byte(readyDevice))
	if err != nil {
		t.Fatal(err)
	}
	return &configs.Daemon{
		DataDir: t.TempDir(), Durability: "process", CommitInterval: 100 * time.Millisecond, DedupTTL: time.Hour,
		Limits:  configs.Limits{MaxInflight: 1000, MaxKeysPerWindow: keys, MaxKeyBytes: 256},
		Broker:  configs.Broker{URL: "tcp://127.0.0.1:1883", ClientID: fmt.Sprintf("edged-ready-%d", time.Now().UnixNano()), KeepAlive: 30 * time.Second},
		Devices: []*configs.Device{dev},
	}
}

// startWithOpenKeys starts a daemon on a data dir that holds an open window for each
// of keys sensors, saved by a replay, so it starts by restoring them.
func startWithOpenKeys(t *testing.T, keys int) *Daemon {
	t.Helper()
	cfg := readyConfig(t, keys)
	dir := cfg.DataDir
	var in strings.Builder
	for i := range keys {
		fmt.Fprintf(&in, `{"at":1000,"topic":"edged-ready-test/k%d","payload":{"ts":1733140000100,"v":1}}`+"\n", i)
	}
	if _, err := Replay(ReplayOptions{Config: cfg, Input: strings.NewReader(in.String()), Output: io.Discard, DataDir: dir, KeepOpen: true}); err != nil {
		t.Fatal(err)
	}
	d, err := Start(context.Background(), cfg, slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
