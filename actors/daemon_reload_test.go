package actors

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// reloadDevice has a window kept across the reloads below (w) and one whose
// size changes (w2); %s is the device id and its topic prefix.
const reloadDevice = `device: %s
streams:
  - name: s
    topic: %s/+
    qos: 1
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 0s, interval: 10ms}
windows:
  - {name: w, stream: s, type: tumbling, size: 1s, aggregates: [count, sum(v)]}
  - {name: w2, stream: s, type: tumbling, size: 1s, aggregates: [count]}
`

func reloadDeviceFile(id string) string {
	return strings.ReplaceAll(strings.Replace(reloadDevice, "device: %s", "device: "+id, 1), "%s", id)
}

// reloadTestDaemon loads a daemon config with devices from files, so defaults and
// validation are the real ones, and runs its topology on the synchronized
// dispatcher without a broker.
func reloadTestDaemon(t *testing.T, devices map[string]string) (*Daemon, *capture, *bytes.Buffer, string) {
	t.Helper()
	return reloadDaemon(t, devices, persist.Options{Durability: persist.Memory}, actor.NewSynchronizedDispatcher(300))
}

// reloadDaemon is reloadTestDaemon on a store opened with opts and actors on
// dispatch (nil: the default, as in edged run).
func reloadDaemon(t testing.TB, devices map[string]string, opts persist.Options, dispatch actor.Dispatcher) (*Daemon, *capture, *bytes.Buffer, string) {
	t.Helper()
	return reloadDaemonWith(t, devices, opts, dispatch, nil)
}

// reloadDaemonWith is reloadDaemon with late spawning what receives late records.
func reloadDaemonWith(t testing.TB, devices map[string]string, opts persist.Options, dispatch actor.Dispatcher,
	late func(*env) *actor.PID) (*Daemon, *capture, *bytes.Buffer, string) {
	t.Helper()
	dir := t.TempDir()
	writeReloadFiles(t, dir, devices)
	daemon := "data_dir: data\ndevices_dir: devices\ncommit_interval: 50ms\nbroker: {url: tcp://127.0.0.1:1}\n"
	if err := os.WriteFile(filepath.Join(dir, "edged.yaml"), []byte(daemon), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := configs.Load(filepath.Join(dir, "edged.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := persist.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	pub := &capture{}
	m := NewMetrics()
	topo, err := buildTopology(cfg, store, m, log, dispatch, pub, late)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(topo.system.Shutdown)
	d := &Daemon{cfg: cfg, log: log, metrics: m, store: store, topo: topo, reload: newReloadState(m.Registry, len(cfg.Devices))}
	return d, pub, logs, filepath.Join(dir, "edged.yaml")
}

func writeReloadFiles(t testing.TB, dir string, devices map[string]string) {
	t.Helper()
	devs := filepath.Join(dir, "devices")
	if err := os.RemoveAll(devs); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(devs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range devices {
		if err := os.WriteFile(filepath.Join(devs, name+".yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestApplyKeepsUnchangedWindowsAndStartsChangedOnesEmpty(t *testing.T) {
	d, pub, logs, path := reloadTestDaemon(t, map[string]string{"a": reloadDeviceFile("a"), "b": reloadDeviceFile("b")})
	var acked atomic.Int64
	publish := func(at int64, topic, payload string) {
		d.topo.router.route(&Inbound{Topic: topic, Payload: []byte(payload), QoS: 1, At: at}, func() { acked.Add(1) })
	}
	publish(1, "a/k", `{"ts":1733140000100,"v":1}`)
	publish(1, "a/k", `{"ts":1733140000200,"v":2}`)
	publish(1, "b/k", `{"ts":1733140000100,"v":1}`)
	d.topo.tick(10) // not yet a commit: the reload must commit and ack these itself
	bBefore := d.topo.pipelines[1]

	// a: w2 changes size, w3 is added; b goes; c comes.
	a2 := strings.Replace(reloadDeviceFile("a"), "{name: w2, stream: s, type: tumbling, size: 1s", "{name: w2, stream: s, type: tumbling, size: 2s", 1) +
		"  - {name: w3, stream: s, type: tumbling, size: 1s, aggregates: [count]}\n"
	dir := filepath.Dir(path)
	writeReloadFiles(t, dir, map[string]string{"a": a2, "c": reloadDeviceFile("c")})
	cfg, err := configs.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	diff, err := d.Reload(context.Background(), cfg)
	if err != nil {
		t.Fatalf("reload refused: %v\n%s", err, logs)
	}
	if got := [][]string{diff.Added, diff.Removed, diff.Changed}; !equalLists(got, [][]string{{"c"}, {"b"}, {"a"}}) {
		t.Fatalf("diff added/removed/changed = %v", got)
	}
	if n := acked.Load(); n != 3 {
		t.Fatalf("%d of 3 messages taken before the reload were acknowledged by it", n)
	}
	if _, ok := d.topo.system.ProcessRegistry.GetLocal(bBefore.Id); ok {
		t.Error("the removed device's pipeline still runs")
	}
	if devs, _ := d.store.Devices(); !strings.Contains(strings.Join(devs, ","), "b") {
		t.Errorf("the removed device's state is gone from the store: %v", devs)
	}

	publish(20, "a/k", `{"ts":1733140000300,"v":4}`)
	publish(20, "c/k", `{"ts":1733140000300,"v":4}`)
	publish(20, "b/k", `{"ts":1733140000300,"v":4}`) // unmatched now: acked and dropped
	publish(30, "a/k", `{"ts":1733140002500,"v":0}`)
	publish(30, "c/k", `{"ts":1733140002500,"v":0}`)
	d.topo.tick(40)
	for _, done := range d.topo.flushAll() {
		<-done
	}
	pub.mu.Lock()
	got := strings.Join(pub.payloads, "\n")
	pub.mu.Unlock()
	for _, want := range []string{
		// w kept the two readings from before the reload.
		`{"device":"a","window":"w","key":"k","start":1733140000000,"end":1733140001000,"revision":0,"kind":"on_time","values":{"count":3,"sum_v":7}`,
		// w2 changed size: it started empty.
		`{"device":"a","window":"w2","key":"k","start":1733140000000,"end":1733140002000,"revision":0,"kind":"on_time","values":{"count":1}`,
		// w3 is new.
		`{"device":"a","window":"w3","key":"k","start":1733140000000,"end":1733140001000,"revision":0,"kind":"on_time","values":{"count":1}`,
		`{"device":"c","window":"w","key":"k","start":1733140000000,"end":1733140001000,"revision":0,"kind":"on_time","values":{"count":1,"sum_v":4}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing result %s in\n%s", want, got)
		}
	}
	if strings.Contains(got, `"device":"b"`) {
		t.Errorf("the removed device published:\n%s", got)
	}
	if !strings.Contains(logs.String(), "window=w2") || !strings.Contains(logs.String(), "starts empty") {
		t.Errorf("the log does not say w2 starts empty:\n%s", logs)
	}
	if st := d.reload.snapshot(); st.Generation != 2 || st.LastReload != reloadApplied || st.Devices != 2 {
		t.Errorf("config status after the reload: %+v", st)
	}
}

func TestReloadRefusesAnInvalidConfigAndADaemonChange(t *testing.T) {
	d, _, _, path := reloadTestDaemon(t, map[string]string{"a": reloadDeviceFile("a")})
	pipeline := d.topo.pipelines[0]

	// A device file that does not validate is refused with its file and line.
	writeReloadFiles(t, filepath.Dir(path), map[string]string{"a": strings.Replace(reloadDeviceFile("a"), "size: 1s", "size: -1s", 1)})
	_, err := configs.Load(path)
	if err == nil {
		t.Fatal("the broken device file loaded")
	}
	d.Refuse(err)
	st := d.reload.snapshot()
	if st.LastReload != reloadRefused || !strings.Contains(st.LastError, "a.yaml:") || st.Generation != 1 {
		t.Errorf("status after an invalid config: %+v", st)
	}

	// A changed daemon file is refused whole, even with a device change beside it.
	writeReloadFiles(t, filepath.Dir(path), map[string]string{"a": reloadDeviceFile("a"), "c": reloadDeviceFile("c")})
	cfg, err := configs.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.CommitInterval *= 2
	if _, err := d.Reload(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "commit_interval") {
		t.Fatalf("Reload with a new commit_interval = %v", err)
	}
	st = d.reload.snapshot()
	if st.LastReload != reloadNeedsRestart || len(st.NeedsRestart) != 1 || st.Generation != 1 {
		t.Errorf("status after a daemon change: %+v", st)
	}
	if len(d.topo.pipelines) != 1 || d.topo.pipelines[0] != pipeline {
		t.Error("a refused reload changed the pipelines")
	}
}

func equalLists(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], ",") != strings.Join(b[i], ",") {
			return false
		}
	}
	return true
}

// A device whose pipeline stopped after repeated failures can be replaced: a fixed
// device file is the way out, so the reload must not wait for it to commit.
func TestApplyReplacesAStoppedDevice(t *testing.T) {
	d, _, _, path := reloadTestDaemon(t, map[string]string{"a": reloadDeviceFile("a")})
	if err := d.topo.system.Root.StopFuture(d.topo.pipelines[0]).Wait(); err != nil {
		t.Fatal(err)
	}
	if d.topo.stoppedDevice() != "a" {
		t.Fatal("the pipeline did not stop")
	}
	fixed, err := configs.ParseDevice(filepath.Join(filepath.Dir(path), "a.yaml"),
		[]byte(strings.Replace(reloadDeviceFile("a"), "size: 1s, aggregates: [count]", "size: 1s, aggregates: [count, max(v)]", 1)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := d.Apply(ctx, []*configs.Device{fixed}); err != nil {
		t.Fatal(err)
	}
	if dev := d.topo.stoppedDevice(); dev != "" {
		t.Fatalf("device %s still stopped after the reload", dev)
	}
}

// The broker session is persistent only while a stream asks for QoS 1; that is set
// when edged connects, so the first QoS 1 stream needs a restart.
func TestApplyRefusesTheFirstQoS1StreamAsNeedingARestart(t *testing.T) {
	qos0 := strings.Replace(reloadDeviceFile("a"), "qos: 1", "qos: 0", 1)
	d, _, _, path := reloadTestDaemon(t, map[string]string{"a": qos0})
	dev, err := configs.ParseDevice(filepath.Join(filepath.Dir(path), "a.yaml"), []byte(reloadDeviceFile("a")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Apply(context.Background(), []*configs.Device{dev}); !errors.Is(err, ErrNeedsRestart) {
		t.Fatalf("Apply = %v, want ErrNeedsRestart", err)
	}
	if st := d.reload.snapshot(); st.LastReload != reloadNeedsRestart || st.Generation != 1 {
		t.Errorf("status: %+v", st)
	}
}
