package e2e

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/longtest"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// The key flood sends readings of 200,000 distinct keys on one stream, as a bad
// sensor or a wrong key field would: edged must keep its memory within the bound
// docs/configuration.md gives for limits.max_keys_per_window and send the readings
// of keys past the limit to the late output. The limit counts live keys: keys whose
// window is done are passivated and make room for new ones, so some of the flood is
// counted in windows and the rest goes late; none is lost.
//
//	go test ./testing/e2e -run 'KeyFlood' -v

const (
	floodKeys = 200_000
	// floodLimit is limits.max_keys_per_window for the flood.
	floodLimit = 2000
	// floodRSSBound bounds the flood's peak RSS with room for a loaded machine:
	// the refused readings' late records on their way out and Badger's buffers,
	// not keys, take most of it (docs/configuration.md, Sizing the key limit).
	// Without the limit every key with an open window stays in memory (~23 KiB each).
	floodRSSBound = 512 << 20
)

func TestLongKeyFloodKeepsMemoryBoundedAndSendsNewKeysToTheLateOutput(t *testing.T) {
	longtest.Skip(t)
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := burstConfig(t, mq.URL(), fmt.Sprintf("flood-%d", time.Now().UnixNano()), fmt.Sprintf("limits: {max_keys_per_window: %d}", floodLimit))
	coll := crashCollect(t, s)
	e := crashStart(t, bin, s.config)
	base := vmRSS(t, e.cmd.Process.Pid)
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func(pid int) {
		defer close(sampled)
		tick := time.NewTicker(100 * time.Millisecond) // the sampling period of RSS
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if rss, err := readVmRSS(pid); err == nil && rss > peak.Load() {
					peak.Store(rss)
				}
			}
		}
	}(e.cmd.Process.Pid)

	events := make([]oracle.Event, floodKeys)
	for i := range events {
		events[i] = oracle.Event{Key: "k" + strconv.Itoa(i), TS: crashBaseTS + int64(i),
			Values: []windows.Value{{Kind: windows.Number, Num: 1}}}
	}
	began := time.Now()
	if err := burstPublish(s, events, 0, len(events)); err != nil {
		t.Fatal(err)
	}
	counted := func() (windowed, late int) {
		results, lateSeqs, _ := coll.snapshot()
		for _, r := range harness.Latest(results) {
			if c := r.Values["count"]; c != nil {
				windowed += int(*c)
			}
		}
		return windowed, len(lateSeqs)
	}
	harness.Eventually(t, 5*time.Minute, "every reading counted in a window or in the late output", func() bool {
		windowed, late := counted()
		return windowed+late >= floodKeys
	})
	close(stop)
	<-sampled
	windowed, late := counted()
	_, _, bad := coll.snapshot()
	t.Logf("%d readings in %s; RSS %d MiB at start, peak %d MiB; %d counted in windows, %d late records",
		floodKeys, time.Since(began).Round(time.Millisecond), base>>20, peak.Load()>>20, windowed, late)
	if len(bad) > 0 {
		t.Errorf("%d malformed output messages, first: %s", len(bad), bad[0])
	}
	if windowed+late != floodKeys {
		t.Errorf("%d readings in windows and %d late, want %d in all, each once", windowed, late, floodKeys)
	}
	if late == 0 || e.metric("edged_late_total") != float64(late) {
		t.Errorf("edged_late_total = %v, %d late records published; want the readings of keys past the limit, each once", e.metric("edged_late_total"), late)
	}
	if peak.Load() > floodRSSBound {
		t.Errorf("peak RSS %d MiB, over the bound of %d MiB", peak.Load()>>20, floodRSSBound>>20)
	}
}

// vmRSS reads a process's resident set size or fails the test.
func vmRSS(t testing.TB, pid int) int64 {
	t.Helper()
	rss, err := readVmRSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	return rss
}

// readVmRSS reads VmRSS (bytes) from /proc/<pid>/status.
func readVmRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
}
