package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// With eKuiper run on the same feed, a CPU row holds by what it spent in this
// run, whatever the range issue 33 reports.
func TestTheLowRowsHoldByEKuiperInTheSameRun(t *testing.T) {
	g := &gateway{
		low: [2]*trial{
			{sent: 1000, edgedCPU: 0.1, ok: true},  // 100 µs: below the range, above this run's eKuiper
			{sent: 1000, edgedCPU: 0.21, ok: true}, // 210 µs: within the range, below this run's eKuiper
		},
		peer: [2]*peerTrial{{sent: 1000, cpu: 0.09, results: 400, due: 500}, {sent: 1000, cpu: 0.3, results: 400, due: 500}},
	}
	var b strings.Builder
	g.print(&b, &options{sensors: 1000})
	want := map[string]string{
		"CPU per message at 250 msg/s, QoS 0": "| below eKuiper 2.4.0's 90 µs on the same feed in this run (400 rows within it, 500 windows due; load ) | no |",
		"CPU per message at 250 msg/s, QoS 1": "| below eKuiper 2.4.0's 300 µs on the same feed in this run (400 rows within it, 500 windows due; load ) | yes |",
	}
	checkRows(t, b.String(), want)
}

// eKuiper's configuration keeps what it had and listens on loopback ports of its
// own, its MQTT source on the trial's broker at the trial's QoS.
func TestEKuiperIsConfiguredForItsTrial(t *testing.T) {
	etc := t.TempDir()
	kuiper := "basic:\n  logLevel: info\n  ip: 0.0.0.0\n  port: 20498\n  restIp: 0.0.0.0\n  restPort: 9081\n  pprof: true\nrule:\n  qos: 0\n"
	if err := os.WriteFile(filepath.Join(etc, "kuiper.yaml"), []byte(kuiper), 0o644); err != nil {
		t.Fatal(err)
	}
	rest, err := kuiperConfig(etc, "tcp://127.0.0.1:1999", 1)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Basic map[string]any
		Rule  map[string]any
	}
	read(t, filepath.Join(etc, "kuiper.yaml"), &cfg)
	if cfg.Basic["logLevel"] != "info" || cfg.Rule["qos"] != 0 {
		t.Errorf("kuiper.yaml lost what it had: %v", cfg)
	}
	if cfg.Basic["restIp"] != "127.0.0.1" || cfg.Basic["ip"] != "127.0.0.1" || cfg.Basic["pprof"] != false {
		t.Errorf("kuiper.yaml listens beyond loopback or profiles: %v", cfg.Basic)
	}
	if port := cfg.Basic["restPort"]; port == 9081 || !strings.HasSuffix(rest, ":"+strings.TrimSpace(yamlString(t, port))) {
		t.Errorf("REST API at %s, restPort %v", rest, port)
	}
	var src map[string]map[string]any
	read(t, filepath.Join(etc, "mqtt_source.yaml"), &src)
	if d := src["default"]; d["server"] != "tcp://127.0.0.1:1999" || d["qos"] != 1 {
		t.Errorf("mqtt_source.yaml: %v", src)
	}
}

func read(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}

func yamlString(t *testing.T, v any) string {
	t.Helper()
	raw, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// -ekuiper .cache/ekuiper, as the README gives it, is relative to where the bench
// runs, not to kuiperd's own directory.
func TestKuiperdIsFoundFromARelativeDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	ran, _ := filepath.Abs("ran")
	if err := os.MkdirAll(filepath.Join("dist", "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("dist", "etc", "kuiper.yaml"), []byte("basic: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("dist", "kuiperd"), []byte("#!/bin/sh\ntouch "+ran+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := startKuiperd(t.Context(), "dist", t.TempDir(), "tcp://127.0.0.1:1", 0); err == nil {
		t.Fatal("a kuiperd that exits at once started")
	}
	if _, err := os.Stat(ran); err != nil {
		t.Errorf("kuiperd did not run from the relative directory dist: %v", err)
	}
}
