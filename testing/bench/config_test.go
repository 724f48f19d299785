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

func TestDaemonYAMLReplacesTheBenchmarksOwnField(t *testing.T) {
	cfg, _, err := writeConfig(t.TempDir(), "process", "tcp://127.0.0.1:1883", "", 0, time.Second, "commit_interval: 3s\ncommit_on_result: false")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CommitInterval != 3*time.Second || cfg.CommitOnResult {
		t.Errorf("commit_interval %v, commit_on_result %v; want 3s and false from -daemon-yaml", cfg.CommitInterval, cfg.CommitOnResult)
	}
}

func TestDaemonYAMLThatIsNotAFieldIsRefusedByName(t *testing.T) {
	_, _, err := writeConfig(t.TempDir(), "process", "tcp://127.0.0.1:1883", "", 0, time.Second, "commit_on_reslt: false")
	if err == nil || !strings.Contains(err.Error(), "commit_on_reslt") {
		t.Fatalf("err = %v, want one that names commit_on_reslt", err)
	}
}
