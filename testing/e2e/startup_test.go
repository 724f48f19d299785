package e2e

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

// A gateway boots its services in any order: edged started before its broker waits
// for it with backoff, logging each attempt, and runs once it is there. Ctrl-C while
// it waits is a clean stop (exit 0).
func TestEdgedWaitsForABrokerThatIsDownAtStartup(t *testing.T) {
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := crashConfig(t, mq.URL(), "startup")
	mq.Stop()

	run := func() (*exec.Cmd, *crashLog, chan struct{}) {
		logs := &crashLog{}
		cmd := exec.Command(bin, "run", "--config", s.config)
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			<-done
			if t.Failed() {
				t.Logf("edged log:\n%s", logs.tail(40))
			}
		})
		return cmd, logs, done
	}
	stopped := func(cmd *exec.Cmd, done chan struct{}) int {
		t.Helper()
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("edged ignored SIGINT for 30s")
		}
		return cmd.ProcessState.ExitCode()
	}

	// Ctrl-C while waiting.
	cmd, logs, done := run()
	harness.Eventually(t, 20*time.Second, "a logged attempt to reach the broker", func() bool {
		return logs.count("mqtt broker unreachable; waiting for it") >= 1
	})
	if code := stopped(cmd, done); code != 0 {
		t.Fatalf("SIGINT while waiting for the broker: exit %d, want 0", code)
	}
	if !strings.Contains(logs.String(), "stopped before edged was running") {
		t.Errorf("the log does not say edged stopped while waiting")
	}

	// The broker comes up while edged waits.
	cmd, logs, done = run()
	harness.Eventually(t, 20*time.Second, "two attempts to reach the broker, with backoff", func() bool {
		return strings.Contains(logs.String(), "attempt=2")
	})
	mq.Restart()
	harness.Eventually(t, 30*time.Second, "edged running once the broker is up", func() bool {
		return strings.Contains(logs.String(), "edged running")
	})
	if code := stopped(cmd, done); code != 0 {
		t.Fatalf("SIGINT while running: exit %d, want 0", code)
	}
}
