package main

import (
	"strings"
	"testing"
	"time"
)

func TestDaemonYAMLReachesTheDaemonFile(t *testing.T) {
	cfg, _, err := writeConfig(t.TempDir(), "process", "tcp://127.0.0.1:1883", "", 0, time.Second, "commit_on_result: false")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CommitOnResult {
		t.Error("commit_on_result: false from -daemon-yaml did not reach the daemon's config")
	}
}

func TestDaemonYAMLCannotSetAFieldTwice(t *testing.T) {
	_, _, err := writeConfig(t.TempDir(), "process", "tcp://127.0.0.1:1883", "", 0, time.Second, "commit_interval: 1s")
	if err == nil || !strings.Contains(err.Error(), "commit_interval") {
		t.Fatalf("err = %v, want one that names commit_interval, set twice", err)
	}
}
