package e2e

import (
	"fmt"
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
	t.Parallel()
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

// A persistent session's backlog arrives right after CONNACK, before the SUBACK that
// start waits for. With more of it than limits.max_inflight, intake holds the client's
// reader until a commit frees room, so commits must already run then, or the SUBACK is
// never read and start fails.
func TestABacklogBeyondMaxInflightAtStart(t *testing.T) {
	t.Parallel()
	mq := broker.Start(t)
	p := fmt.Sprintf("pl-backlog-%d", time.Now().UnixNano())
	dir := t.TempDir()
	daemon := daemonYAML("process", mq.URL(), p) + fmt.Sprintf("data_dir: %s\nlimits: {max_inflight: 10}\n", dir)
	path := harness.WriteConfig(t, daemon, map[string]string{"d.yaml": tumblingDevice{
		device: "d", stream: "s", topic: p + "/+/data", qos: 1,
		watermark:  "{strategy: bounded, max_out_of_orderness: 0s, idle_timeout: 0s}",
		aggregates: "[count]", output: p + "/out/{key}",
	}.yaml()})
	first := harness.Start(t, path) // subscribes in a persistent session
	if err := first.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}

	const backlog = 500
	pub := plPublish(t, mq.URL())
	for n := range backlog {
		pub.send(p+"/a/data", fmt.Appendf(nil, `{"ts":%d,"temp":1}`, 1733140800000+int64(n)*10))
	}
	pub.flush()

	e := harness.Start(t, path) // fails on a blocked SUBACK
	harness.Eventually(t, 30*time.Second, "the whole backlog taken in", func() bool {
		return plMetric(t, e, "edged_records_in_total", nil) >= backlog
	})
}
