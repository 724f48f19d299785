package main

import (
	"strings"
	"testing"
	"time"
)

// Each gateway row says whether this run meets its target, and the CPU rows
// against the peer's range say so only outside that range.
func TestGatewayRowsSayWhichTargetsHold(t *testing.T) {
	g := &gateway{
		idle: &idleRun{span: 30 * time.Second, edgedCPU: 0.06, load: "1.0"}, // 0.2 % of a core
		low: [2]*trial{
			{sent: 1000, edgedCPU: 0.1, ok: true},                                                // 100 µs: below 150–225
			{sent: 1000, edgedCPU: 0.21, ok: true, latencies: []time.Duration{time.Millisecond}}, // 210 µs: within 204–226
		},
		flash: [2]*trial{
			{received: 1000, sent: 1000, payload: 60_000, written: diskWrites{written: 100_000}, ok: true}, // 100 B ≤ 120
			{received: 1000, sent: 1000, payload: 60_000, written: diskWrites{written: 200_000}, ok: true, maxRSS: 40},
		},
	}
	var b strings.Builder
	g.print(&b, &options{sensors: 1000})
	want := map[string]string{
		"idle CPU":                            "| no |",
		"CPU per message at 250 msg/s, QoS 0": "| yes |",
		"CPU per message at 250 msg/s, QoS 1": "| within eKuiper's range |",
		"result latency at 250 msg/s, QoS 1":  "| yes |",
		"per reading at 1,000 msg/s, QoS 0":   "| yes |",
		"per reading at 1,000 msg/s, QoS 1":   "| no |",
		"peak RSS":                            "| yes |",
	}
	checkRows(t, b.String(), want)
}

// checkRows checks that table has a row naming each key of want, and that the row
// says its value.
func checkRows(t *testing.T, table string, want map[string]string) {
	t.Helper()
	for l := range strings.Lines(table) {
		for name, says := range want {
			if strings.Contains(l, name) {
				if !strings.Contains(l, says) {
					t.Errorf("row %q does not say %q", l, says)
				}
				delete(want, name)
			}
		}
	}
	for name := range want {
		t.Errorf("no row %q in\n%s", name, table)
	}
}
