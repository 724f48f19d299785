package main

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// A child's peak RSS must be its own: Linux carries the parent's peak into an
// exec'd child's getrusage maxrss, which made a replay child started by a
// bench holding a few hundred MiB report the bench's peak instead of its own.
func TestPeakRSSIsTheChildsOwn(t *testing.T) {
	if os.Getenv("BENCH_PEAK_RSS_CHILD") != "" {
		rss, err := peakRSS()
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString(strconv.FormatFloat(rss, 'f', 1, 64) + "\n")
		return
	}
	const ballastMiB = 256
	ballast := make([]byte, ballastMiB<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSSIsTheChildsOwn$")
	cmd.Env = append(os.Environ(), "BENCH_PEAK_RSS_CHILD=1")
	out, err := cmd.Output()
	runtime.KeepAlive(ballast)
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	rss, err := strconv.ParseFloat(line, 64)
	if err != nil {
		t.Fatalf("child printed %q", out)
	}
	if rss >= ballastMiB/2 {
		t.Errorf("child's peak RSS %.1f MiB: the parent's %d MiB ballast counted in it", rss, ballastMiB)
	}
}
