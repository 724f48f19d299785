package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
)

// TestTheDemoShowsResultsAndStopsCleanlyOnSIGINT builds the edged binary, runs
// `edged demo`, waits for a result line within 10 s, interrupts it and expects
// a clean exit (status 0, state directory removed) within a deadline.
func TestTheDemoShowsResultsAndStopsCleanlyOnSIGINT(t *testing.T) {
	t.Parallel()
	bin := demoBuild(t)
	cmd := exec.Command(bin, "demo", "--sensors", "5", "--rate", "5", "--status-every", "1s")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr broker.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})

	result := regexp.MustCompile(`^result  demo/per-5s  s-\d+ +\[\d\d:\d\d:\d\d\.\d{3}, \d\d:\d\d:\d\d\.\d{3}\)  count=\d+ avg_temp=`)
	deadline := time.After(10 * time.Second)
	var seen []string
	for found := false; !found; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the demo exited before a result: %v\nstdout:\n%s\nstderr:\n%s", <-exited, strings.Join(seen, "\n"), stderr.String())
			}
			seen = append(seen, l)
			found = result.MatchString(l)
		case <-deadline:
			t.Fatalf("no result line within 10s\nstdout:\n%s\nstderr:\n%s", strings.Join(seen, "\n"), stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range lines {
		}
	}()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the demo exited with %v after SIGINT\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the demo did not exit within 15s of SIGINT\nstderr:\n%s", stderr.String())
	}
	if m := regexp.MustCompile(`state in (\S+)`).FindStringSubmatch(stderr.String()); m == nil {
		t.Errorf("the demo did not say where its state is:\n%s", stderr.String())
	} else if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("the demo left its state directory %s behind (stat: %v)", m[1], err)
	}
}

// demoBuild compiles cmd/edged with the race detector if this test has it, so
// the build reuses the packages the test binary was built from.
func demoBuild(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "edged")
	args := []string{"build", "-o", bin}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "-race" && s.Value == "true" {
				args = append(args, "-race")
			}
		}
	}
	cmd := exec.Command("go", append(args, "github.com/edged/edged/cmd/edged")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building edged: %v\n%s", err, out)
	}
	return bin
}
