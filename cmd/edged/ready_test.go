package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
)

// systemd starts the units ordered after edged once it says READY=1, so edged must
// say it only once it takes messages: after every device restored its saved state,
// which with many open windows outlasts the broker connection. When READY=1 comes,
// /healthz must already say ok.
func TestReadyIsSentOnlyOnceEveryDeviceIsRestored(t *testing.T) {
	const keys = 30_000
	dev, err := configs.ParseDevice("dev.yaml", []byte(`
device: d
streams:
  - name: s
    topic: edged-sdnotify-test/+
    qos: 0
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 1h
    aggregates: [count, sum(v)]
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := &configs.Daemon{
		DataDir: dir, Durability: "process", CommitInterval: 100 * time.Millisecond, DedupTTL: time.Hour,
		Limits:  configs.Limits{MaxInflight: 1000, MaxKeysPerWindow: keys, MaxKeyBytes: 256},
		Broker:  configs.Broker{URL: "tcp://127.0.0.1:1883", ClientID: fmt.Sprintf("edged-sdnotify-%d", time.Now().UnixNano()), KeepAlive: 30 * time.Second},
		HTTP:    configs.HTTP{Listen: freeAddr(t)},
		Devices: []*configs.Device{dev},
	}
	var in strings.Builder
	for i := range keys {
		fmt.Fprintf(&in, `{"at":1000,"topic":"edged-sdnotify-test/k%d","payload":{"ts":1733140000100,"v":1}}`+"\n", i)
	}
	if _, err := actors.Replay(actors.ReplayOptions{Config: cfg, Input: strings.NewReader(in.String()), Output: io.Discard, DataDir: dir, KeepOpen: true}); err != nil {
		t.Fatal(err)
	}

	sock := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", sock)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveUntil(ctx, cfg, "", "", false, io.Discard) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()

	buf := make([]byte, 64)
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	n, err := conn.Read(buf)
	if err != nil || string(buf[:n]) != "READY=1" {
		t.Fatalf("read %q, %v; want READY=1", buf[:n], err)
	}
	resp, err := http.Get("http://" + cfg.HTTP.Listen + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("READY=1 sent while /healthz says %d %s", resp.StatusCode, body)
	}
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
