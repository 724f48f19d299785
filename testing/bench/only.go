package main

import (
	"fmt"
	"os"
)

// Single live trials, for comparing two builds without the whole table: run
// each build in turn, several times, and compare the spread.
const (
	onlyLatency = "latency" // the QoS 1 result latency trial at latencyRate
	onlyCPU     = "cpu"     // the fixed-rate CPU trials at cpuRate, QoS 0 and 1
	onlyRestart = "restart" // the restart with restartWindows open windows
)

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
	case onlyRestart:
		r, err := measureRestart(dir)
		if err != nil {
			return err
		}
		fmt.Printf("restart with %d open windows: %s\n", restartWindows, r)
	default:
		return fmt.Errorf("-only %q: want %q, %q or %q", o.only, onlyLatency, onlyCPU, onlyRestart)
	}
	return nil
}
