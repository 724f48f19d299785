package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged/edged/testing/harness"
)

// TestReplayMetricsWritesTheSeriesRunWouldExpose: --metrics writes the
// Prometheus text exposition at the end, with per-topic series when the config
// asks for them, so a soak can count the series a gateway's scrape would hold.
func TestReplayMetricsWritesTheSeriesRunWouldExpose(t *testing.T) {
	config := harness.WriteConfig(t, "durability: memory\nlog: {level: error}\nhttp: {listen: \"\"}\nmetrics: {per_topic: true}\n",
		map[string]string{"dev.yaml": `device: dev
streams:
  - name: s
    topic: sensors/+/data
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 1s
    aggregates: [count, avg(temp)]
`})
	dir := t.TempDir()
	input := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(input, []byte(`{"at":1733140001000,"topic":"sensors/a/data","payload":{"ts":1733140001000,"temp":20}}
{"at":1733140001500,"topic":"sensors/b/data","payload":{"ts":1733140001500,"temp":21}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	metrics := filepath.Join(dir, "metrics.txt")
	if err := replayCmd([]string{"--config", config, "--input", input, "--metrics", metrics}, &bytes.Buffer{}, os.Stderr); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		`edged_records_in_total{device="dev",stream="s",topic="sensors/a/data"} 1`,
		`edged_records_in_total{device="dev",stream="s",topic="sensors/b/data"} 1`,
		`edged_window_firings_total{device="dev",window="w"} 2`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the metrics file has no line %s:\n%s", want, text)
		}
	}
}
