package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/edged/edged/configs"
)

// benchCommit is the high-rate trials' and replays' commit interval; the gateway
// trials (gateway.go) keep the default a gateway runs.
const benchCommit = 50 * time.Millisecond

// benchMaxKeys lets the restart measurement hold restartWindows keys; the other
// measurements stay far below it, where the limit changes nothing.
const benchMaxKeys = restartWindows

// writeConfig writes the benchmark's daemon and device files under dir and
// loads them: one stream sensors/+/data keyed by sensor, one 10 s tumbling
// window with count/avg/min/max/p95 of temp, committed every commit. extra holds
// daemon fields, one a line, each in place of the benchmark's own or added.
func writeConfig(dir, durability, broker, httpListen string, qos int, commit time.Duration, extra string) (*configs.Daemon, string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "devices"), 0o755); err != nil {
		return nil, "", err
	}
	daemon := fmt.Sprintf(`durability: %s
data_dir: %s
commit_interval: %s
log: {level: warn}
limits: {max_keys_per_window: %d}
http: {listen: %q}
broker: {url: %q, client_id: edged-bench}
`, durability, filepath.Join(dir, "data"), commit, benchMaxKeys, httpListen, broker)
	daemon = withFields(daemon, extra)
	device := fmt.Sprintf(`device: bench
streams:
  - name: sensors
    topic: sensors/+/data
    qos: %d
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 500ms, idle_timeout: 30s}
windows:
  - name: per-10s
    stream: sensors
    type: tumbling
    size: 10s
    aggregates: [count, avg(temp), min(temp), max(temp), p95(temp)]
    output: {topic: "edged/{device}/{window}/{key}", qos: %d}
`, qos, qos)
	path := filepath.Join(dir, "edged.yaml")
	if err := os.WriteFile(path, []byte(daemon), 0o644); err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "devices", "bench.yaml"), []byte(device), 0o644); err != nil {
		return nil, "", err
	}
	cfg, err := configs.Load(path)
	return cfg, path, err
}

// withFields returns the daemon file base with each line of extra in place of
// base's line of the same field, or at its end.
func withFields(base, extra string) string {
	lines := strings.Split(strings.TrimSuffix(base, "\n"), "\n")
next:
	for _, f := range strings.Split(extra, "\n") {
		name, _, ok := strings.Cut(f, ":")
		if !ok {
			if strings.TrimSpace(f) != "" {
				lines = append(lines, f) // not a field: the config's parser names it
			}
			continue
		}
		for i, l := range lines {
			if strings.HasPrefix(l, name+":") {
				lines[i] = f
				continue next
			}
		}
		lines = append(lines, f)
	}
	return strings.Join(lines, "\n") + "\n"
}
