package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
)

// crashReadyTimeout bounds how long an edged incarnation may take to restore its
// state and connect.
const crashReadyTimeout = 30 * time.Second

// crashEdged is `edged run` as a child process that the test kills and restarts.
type crashEdged struct {
	t      testing.TB
	bin    string
	config string
	logs   *crashLog // every incarnation's stderr, in order

	cmd      *exec.Cmd
	done     chan struct{}
	httpAddr string
	runs     int
	// resetNext makes the next start pass --reset-state.
	resetNext bool
}

// crashUp writes a config for the broker at url with a topic prefix no other
// test uses, subscribes the collector to its results and starts edged on it.
func crashUp(t testing.TB, bin, url, name string) (crashSetup, *crashCollector, *crashEdged) {
	t.Helper()
	s := crashConfig(t, url, fmt.Sprintf("%s-%d", name, time.Now().UnixNano()))
	coll := crashCollect(t, s)
	return s, coll, crashStart(t, bin, s.config)
}

// crashStart starts edged with the daemon file at config and waits until it runs.
func crashStart(t testing.TB, bin, config string) *crashEdged {
	t.Helper()
	e := &crashEdged{t: t, bin: bin, config: config, logs: &crashLog{}}
	t.Cleanup(func() {
		e.kill()
		if t.Failed() {
			t.Logf("edged log (%d runs):\n%s", e.runs, e.logs.tail(200))
		}
	})
	e.start()
	return e
}

// start runs a new incarnation and waits for "edged running" in its log.
func (e *crashEdged) start() {
	e.t.Helper()
	e.runs++
	fmt.Fprintf(e.logs, "---- run %d ----\n", e.runs)
	from := e.logs.len()
	args := []string{"run", "--config", e.config}
	if e.resetNext {
		args, e.resetNext = append(args, "--reset-state"), false
	}
	e.cmd = exec.Command(e.bin, args...)
	e.cmd.Stdout, e.cmd.Stderr = e.logs, e.logs
	if err := e.cmd.Start(); err != nil {
		e.t.Fatalf("starting edged: %v", err)
	}
	e.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(e.cmd, e.done)
	deadline := time.After(crashReadyTimeout)
	for {
		if line, ok := e.logs.find(from, "edged running"); ok {
			if m := crashHTTPAddr.FindStringSubmatch(line); m != nil {
				e.httpAddr = m[1]
			}
			return
		}
		select {
		case <-e.done:
			e.t.Fatalf("edged exited at start (run %d): %v\n%s", e.runs, e.cmd.ProcessState, e.logs.tail(50))
		case <-deadline:
			e.t.Fatalf("edged not running after %s (run %d)\n%s", crashReadyTimeout, e.runs, e.logs.tail(50))
		case <-time.After(5 * time.Millisecond): // poll interval
		}
	}
}

var crashHTTPAddr = regexp.MustCompile(`http=(\S+)`)

// kill stops the running incarnation with SIGKILL, as a crash would, and waits
// until it is gone (so its directory lock is released).
func (e *crashEdged) kill() {
	if e.cmd == nil {
		return
	}
	_ = e.cmd.Process.Signal(syscall.SIGKILL)
	<-e.done
	e.cmd = nil
}

// term stops the running incarnation with SIGTERM and returns its exit code.
func (e *crashEdged) term() int {
	e.t.Helper()
	if err := e.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		e.t.Fatalf("signalling edged: %v", err)
	}
	select {
	case <-e.done:
	case <-time.After(30 * time.Second):
		e.t.Fatalf("edged ignored SIGTERM for 30s")
	}
	code := e.cmd.ProcessState.ExitCode()
	e.cmd = nil
	return code
}

// metric sums the samples of one metric on the running incarnation's /metrics
// (counters start from zero in every incarnation).
func (e *crashEdged) metric(name string) float64 {
	e.t.Helper()
	if e.httpAddr == "" {
		e.t.Fatal("edged serves no /metrics (http.listen is off)")
	}
	return upMetric(e.t, e.httpAddr, name, nil)
}

// crashRun runs edged once to completion (inspect, or a run expected to fail fast)
// and returns its exit code and its output, stdout then stderr.
func crashRun(t testing.TB, bin string, timeout time.Duration, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("running edged %v: %v", args, err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String() + stderr.String()
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("edged %v still running after %s:\n%s", args, timeout, stderr.String())
		return 0, ""
	}
}

// crashLog collects a child's output from exec's goroutines, across restarts.
type crashLog struct{ broker.SyncBuffer }

func (l *crashLog) len() int { return l.Len() }

// find returns the first line after offset from that contains s.
func (l *crashLog) find(from int, s string) (string, bool) {
	rest := l.String()[from:]
	i := strings.Index(rest, s)
	if i < 0 {
		return "", false
	}
	start := strings.LastIndexByte(rest[:i], '\n') + 1
	end := strings.IndexByte(rest[i:], '\n')
	if end < 0 {
		return rest[start:], true
	}
	return rest[start : i+end], true
}

// count returns how many lines contain s.
func (l *crashLog) count(s string) int { return strings.Count(l.String(), s) }

func (l *crashLog) tail(lines int) string {
	all := strings.Split(l.String(), "\n")
	if len(all) > lines {
		all = append([]string{fmt.Sprintf("... %d lines before", len(all)-lines)}, all[len(all)-lines:]...)
	}
	return strings.Join(all, "\n")
}

// crashWriteFile writes a file or fails the test.
func crashWriteFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
