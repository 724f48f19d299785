package e2e

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

// faultDiskSize is the tmpfs the disk-full test gives edged: room for the default
// free-space reserve (limits.min_free_disk, 64 MiB) and the state of the test feed.
const faultDiskSize = 160 << 20

// A gateway's flash fills up (logs, another program): edged must not die (Badger maps
// its files, and a write into a mapped page the disk has no room for is a SIGBUS),
// must stall with /healthz naming the disk, and must go on by itself, losing
// nothing, once there is room again.
func TestDiskFullStallsIntakeAndResumesWhenSpaceReturns(t *testing.T) {
	t.Parallel()
	disk := faultMountTmpfs(t, faultDiskSize)
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := crashConfigIn(t, mq.URL(), fmt.Sprintf("diskfull-%d", time.Now().UnixNano()), filepath.Join(disk, "data"), "")
	coll := crashCollect(t, s)
	e := crashStart(t, bin, s.config)
	n := crashReadings / 2
	events := crashEvents(13, n)

	var acked atomic.Int64
	pubDone := make(chan error, 1)
	go func() { pubDone <- crashPublish(t, s, events, 0, n, &acked) }()
	harness.Eventually(t, 30*time.Second, "results flowing", func() bool {
		r, _, _ := coll.snapshot()
		return len(r) > 100
	})

	filler := filepath.Join(disk, "filler")
	filled := faultFill(t, filler)
	t.Logf("filled the disk with %d MiB after %d readings were acknowledged by the broker", filled>>20, acked.Load())
	status := faultAwaitHealth(t, e, http.StatusServiceUnavailable)
	if !strings.Contains(status, "disk") {
		t.Errorf("/healthz says %q while the disk is full; want the disk named", status)
	}
	if err := <-pubDone; err != nil {
		t.Fatal(err)
	}
	// Commits keep being retried while the disk stays full; edged must live through them.
	errs := e.metric("edged_commit_errors_total")
	faultAwaitAlive(t, e, "20 more refused commits", func() bool { return e.metric("edged_commit_errors_total") >= errs+20 })
	t.Logf("stalled: /healthz %q, %v commits refused", status, e.metric("edged_commit_errors_total"))

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	status = faultAwaitHealth(t, e, http.StatusOK)
	t.Logf("resumed: /healthz %q", status)
	crashReport(t, crashAwait(t, coll, events, false))
}

// A stop during a stall must not wait for the disk: edged exits 0 at once, says
// what it leaves unacknowledged, and the broker redelivers it to the next run.
func TestSigtermDuringADiskStallExitsCleanlyAndLosesNothing(t *testing.T) {
	t.Parallel()
	disk := faultMountTmpfs(t, faultDiskSize)
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := crashConfigIn(t, mq.URL(), fmt.Sprintf("stallstop-%d", time.Now().UnixNano()), filepath.Join(disk, "data"), "")
	coll := crashCollect(t, s)
	e := crashStart(t, bin, s.config)
	const n = 4000
	events := crashEvents(17, n)
	var acked atomic.Int64
	if err := crashPublish(t, s, events, 0, n/2, &acked); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(disk, "filler")
	faultFill(t, filler)
	faultAwaitHealth(t, e, http.StatusServiceUnavailable)
	if err := crashPublish(t, s, events, n/2, n, &acked); err != nil {
		t.Fatal(err)
	}
	faultAwaitAlive(t, e, "readings held unacknowledged", func() bool { return e.metric("edged_inflight_messages") > 0 })

	began := time.Now()
	if code := e.term(); code != 0 {
		t.Errorf("edged exited %d after SIGTERM during the stall, want 0", code)
	}
	t.Logf("stopped in %s", time.Since(began).Round(time.Millisecond))
	line, ok := e.logs.find(0, "stopping with messages not acknowledged")
	if !ok || !strings.Contains(line, "the disk is nearly full") {
		t.Errorf("the log does not say what was left unacknowledged and why:\n%s", e.logs.tail(30))
	}
	t.Log(line)

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	e.start()
	crashReport(t, crashAwait(t, coll, events, false))
}

// faultMountTmpfs mounts a tmpfs of size bytes on a new temp dir, unmounted when the
// test ends (after edged, whose cleanup is registered later, was killed).
func faultMountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a tmpfs to fill (needs root or CAP_SYS_ADMIN): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("unmounting %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// faultFill writes zeros to path until the disk is full, as a runaway log would, and
// returns how many bytes it wrote.
func faultFill(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		w, err := f.Write(buf)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			return n
		}
		if err != nil {
			t.Fatalf("filling %s: %v", path, err)
		}
	}
}

// faultAwaitHealth polls /healthz until it answers code, failing the test if edged
// exits first, and returns the status it gave.
func faultAwaitHealth(t *testing.T, e *crashEdged, code int) string {
	t.Helper()
	var status string
	faultAwaitAlive(t, e, fmt.Sprintf("/healthz %d", code), func() bool {
		got, body := faultHealth(t, e)
		status = body
		return got == code
	})
	return status
}

// faultAwaitAlive polls cond until it holds, failing the test if edged exits first.
func faultAwaitAlive(t *testing.T, e *crashEdged, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(crashFinalTimeout)
	for !cond() {
		select {
		case <-e.done:
			t.Fatalf("edged exited (%v) while waiting for %s:\n%s", e.cmd.ProcessState, what, faultCrashHead(e.logs.String()))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", crashFinalTimeout, what)
		}
		time.Sleep(20 * time.Millisecond) // a poll interval, not a wait for an event
	}
}

// faultHealth returns /healthz's status code and body; 0 if edged did not answer.
func faultHealth(t *testing.T, e *crashEdged) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + e.httpAddr + "/healthz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body))
}

// faultCrashHead returns the start of the Go runtime's crash report in a child's
// output (the signal and the faulting goroutine), or the output's end if there is none.
func faultCrashHead(out string) string {
	i := strings.Index(out, "\nunexpected fault address")
	if i < 0 {
		i = strings.Index(out, "\nfatal error:")
	}
	if i < 0 {
		i = strings.Index(out, "\npanic:")
	}
	if i < 0 {
		return out[max(0, len(out)-4000):]
	}
	lines := strings.SplitN(out[i+1:], "\n", 30)
	return strings.Join(lines[:min(len(lines), 29)], "\n")
}
