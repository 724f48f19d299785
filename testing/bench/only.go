package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// Single live trials, for comparing two builds without the whole table: run
// each build in turn, several times, and compare the spread.
const (
	onlyLatency = "latency" // the QoS 1 result latency trial at latencyRate
	onlyCPU     = "cpu"     // the fixed-rate CPU trials at cpuRate, QoS 0 and 1
	onlyRestart = "restart" // the restart with restartWindows open windows
	onlyRSS     = "rss"     // peak RSS: live trials at rssRate and the replay of wideSensors open windows
	onlyIdle    = "idle"    // the gateway row of CPU with nothing arriving
	onlyLow     = "low"     // the gateway rows at lowRate: CPU per message, QoS 0 and 1, and result latency
	onlyFlash   = "flash"   // the gateway rows at flashRate: bytes written per reading, QoS 0 and 1
)

// rssRate is the rate per QoS of -only rss's live trials: near the highest rates
// make bench sustains on 2 cores, where the daemon's memory peaks.
var rssRate = [2]float64{60_000, 30_000}

// runOnly runs the live trials o.only names and prints one line each.
func runOnly(o *options) error {
	dir, err := os.MkdirTemp("", "edged-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	switch o.only {
	case onlyLatency:
		t, err := runTrial(dir, 1, latencyRate, o)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "live QoS 1 latency trial: %s\n", t)
		fmt.Printf("latency QoS 1 at %s msg/s: %s (%d rows, sustained %v)\n", thousands(latencyRate), quantiles(t.latencies), len(t.latencies), t.ok)
	case onlyCPU:
		for qos := range 2 {
			t, err := runTrial(dir, qos, cpuRate, o)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "live QoS %d: %s\n", qos, t)
			fmt.Printf("CPU QoS %d at %s msg/s: %.1f µs/msg (sustained %v, %.1f µs per message processed, peak RSS %.0f MiB)\n", qos, thousands(cpuRate), t.edgedCPU/float64(t.sent)*1e6, t.ok, t.edgedCPU/float64(t.received)*1e6, t.maxRSS)
		}
	case onlyRSS:
		return runOnlyRSS(dir, o)
	case onlyIdle, onlyLow, onlyFlash:
		var g gateway
		if err := runGateway(dir, o, &g, o.only); err != nil {
			return err
		}
		g.print(os.Stdout, o)
	case onlyRestart:
		r, err := measureRestart(dir, o)
		if err != nil {
			return err
		}
		fmt.Printf("restart with %d open windows: %s\n", restartWindows, r)
	default:
		return fmt.Errorf("-only %q: want %q, %q, %q, %q, %q, %q or %q", o.only, onlyLatency, onlyCPU, onlyRSS, onlyRestart, onlyIdle, onlyLow, onlyFlash)
	}
	return nil
}

// runOnlyRSS prints the daemon's peak RSS in a live trial at rssRate per QoS and
// the peak RSS of replaying wideSensors sensors whose windows stay open.
func runOnlyRSS(dir string, o *options) error {
	for qos := range 2 {
		t, err := runTrial(dir, qos, rssRate[qos], o)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "live QoS %d: %s\n", qos, t)
		fmt.Printf("RSS QoS %d at %s msg/s: peak %.0f MiB, at its highest sample %s (sustained %v, %.1f µs/msg)", qos, thousands(rssRate[qos]), t.maxRSS, &t.rssParts, t.ok, t.edgedCPU/float64(t.sent)*1e6)
		if qos == 1 {
			fmt.Printf("; target ≤ %d MiB holds: %s", rssTarget, yesNo(t.maxRSS <= rssTarget))
		}
		fmt.Println()
	}
	wide := filepath.Join(dir, "wide.jsonl")
	if err := generateFeed(wide, wideSensors*5, wideSensors, o.rate); err != nil {
		return err
	}
	var extra []string
	if o.heapProfile != "" {
		extra = []string{"-child-heapprofile", o.heapProfile + "-replay.pprof"}
	}
	sub := mustTemp(dir, "replay-")
	defer os.RemoveAll(sub)
	m, err := measureIn(sub, "replay", "process", wide, extra...)
	if err != nil {
		return err
	}
	fmt.Printf("RSS replay of %d open windows: peak %.0f MiB (%.1f µs/msg)\n", wideSensors, m.MaxRSS, m.CPU/float64(m.Events)*1e6)
	return nil
}
