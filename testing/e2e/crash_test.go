package e2e

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/edged/edged/persist"
	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/longtest"
	"github.com/edged/edged/testing/oracle"
)

// The crash suite runs `edged run` as a child process against a real Mosquitto
// (testing/broker, with the settings the no-loss promise needs) and checks the
// results edged publishes against the batch oracle.
//
//	go test ./testing/e2e -run 'Crash|Clean|Locked|Unreadable' -v

// crashFinalTimeout bounds the wait for every window to fire after the last
// reading: idle_timeout plus a window, the bound and restoring after a kill.
const crashFinalTimeout = 60 * time.Second

// crashReadings is the size of the kill -9 drill's feed; other suites take a part.
const crashReadings = 50_000

func TestLongKillNineThreeTimesLosesNothingAndCountsNothingTwice(t *testing.T) {
	longtest.Skip(t)
	t.Parallel()
	bin := crashBuild(t)
	n := crashReadings
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			crashKillRun(t, bin, seed, n)
		})
	}
}

func crashKillRun(t *testing.T, bin string, seed uint64, n int) {
	began := time.Now()
	mq := broker.Start(t)
	s, coll, e := crashUp(t, bin, mq.URL(), fmt.Sprintf("crash%d", seed))
	events := crashEvents(seed, n)

	rng := rand.New(rand.NewPCG(seed, 0xc4a5))
	kills := make([]int64, 3)
	for i := range kills {
		kills[i] = int64(n/20 + rng.IntN(n-n/20+1)) // after 5% .. 100% of the readings were acknowledged
	}
	slices.Sort(kills)
	t.Logf("seed %d: %d readings, kill -9 after %v readings were acknowledged by the broker", seed, n, kills)

	var acked atomic.Int64
	pubDone := make(chan error, 1)
	go func() { pubDone <- crashPublish(t, s, events, 0, n, &acked) }()
	for i, at := range kills {
		harness.Eventually(t, 2*time.Minute, fmt.Sprintf("%d readings acknowledged", at), func() bool { return acked.Load() >= at })
		dups := e.metric("edged_duplicates_skipped_total")
		e.kill()
		restart := time.Now()
		e.start()
		t.Logf("kill %d at %d readings (incarnation skipped %v redelivered duplicates); restarted in %s",
			i+1, acked.Load(), dups, time.Since(restart).Round(time.Millisecond))
	}
	if err := <-pubDone; err != nil {
		t.Fatal(err)
	}
	published := time.Now()
	v := crashAwait(t, coll, events, false)
	results, _, _ := coll.snapshot()
	t.Logf("seed %d: %d windows, %d results, %d readings reported late; all windows right %s after the last reading, %s in all; last incarnation skipped %v duplicates",
		seed, v.windows, len(results), v.late, time.Since(published).Round(time.Millisecond), time.Since(began).Round(time.Millisecond),
		e.metric("edged_duplicates_skipped_total"))
	crashReport(t, v)
}

// crashAwait polls until what edged published matches the oracle, or the
// deadline passes, and returns the last verdict.
func crashAwait(t testing.TB, coll *crashCollector, events []oracle.Event, unique bool) crashVerdict {
	t.Helper()
	deadline := time.Now().Add(crashFinalTimeout)
	for {
		results, late, bad := coll.snapshot()
		if len(bad) > 0 {
			t.Fatalf("%d malformed messages on the output topics, first: %s", len(bad), bad[0])
		}
		v := crashCheck(t, events, results, late, unique)
		if len(v.problems) == 0 || time.Now().After(deadline) {
			return v
		}
		time.Sleep(250 * time.Millisecond) // the poll interval of a wait bounded by deadline
	}
}

func TestCleanRestartRepublishesNothingAndWatermarksContinue(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s, coll, e := crashUp(t, bin, mq.URL(), "clean")
	const n = 10_000
	events := crashEvents(7, n)
	var acked atomic.Int64
	pubDone := make(chan error, 1)
	go func() { pubDone <- crashPublish(t, s, events, 0, n, &acked) }()
	// Stop while readings arrive and results are being published, so the stop has
	// results in flight.
	harness.Eventually(t, 30*time.Second, "results flowing", func() bool {
		r, _, _ := coll.snapshot()
		return len(r) > 300
	})
	if code := e.term(); code != 0 {
		t.Fatalf("edged exited %d after SIGTERM", code)
	}
	t.Logf("stopped after %d readings were acknowledged by the broker", acked.Load())
	code, out := crashRun(t, bin, 30*time.Second, "inspect", "--data", s.dataDir)
	if code != 0 {
		t.Fatalf("edged inspect exited %d", code)
	}
	before := crashStreamWatermarks(t, out)
	if len(before) < 190 {
		t.Fatalf("inspect shows %d stream watermarks, want about 200:\n%s", len(before), out)
	}
	restarted := time.Now().UnixMilli()
	e.start()
	if err := <-pubDone; err != nil {
		t.Fatal(err)
	}
	crashReport(t, crashAwait(t, coll, events, true))

	results, _, _ := coll.snapshot()
	after := 0
	for _, r := range results {
		if r.EmittedAt < restarted {
			continue
		}
		after++
		if wm, ok := before[r.Key]; ok && r.Watermark < wm {
			t.Errorf("after the restart key %s fired window %d at watermark %d, below its stream's watermark %d before the stop",
				r.Key, r.Start, r.Watermark, wm)
		}
	}
	if after == 0 {
		t.Error("no result was published after the restart")
	}
}

var crashInspectStream = regexp.MustCompile(`(?m)^\s+\S+/(k\d+)/data  watermark (-?\d+)`)

// crashStreamWatermarks reads `edged inspect` output: key -> its stream's watermark.
func crashStreamWatermarks(t testing.TB, out string) map[string]int64 {
	t.Helper()
	wms := map[string]int64{}
	for _, m := range crashInspectStream.FindAllStringSubmatch(out, -1) {
		wm, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		wms[m[1]] = wm
	}
	return wms
}

func TestLockedDataDirIsRefusedWithAClearMessage(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := crashConfig(t, mq.URL(), fmt.Sprintf("locked-%d", time.Now().UnixNano()))
	crashStart(t, bin, s.config)
	tests := []struct {
		name string
		args []string
	}{
		{"a second edged run on the same data dir fails", []string{"run", "--config", s.config}},
		{"edged inspect on a held data dir fails", []string{"inspect", "--data", s.dataDir}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, output := crashRun(t, bin, 30*time.Second, tt.args...)
			if code == 0 {
				t.Fatalf("exit 0, want a failure; output:\n%s", output)
			}
			for _, want := range []string{s.dataDir, "another edged"} {
				if !strings.Contains(output, want) {
					t.Errorf("output lacks %q:\n%s", want, output)
				}
			}
		})
	}
}

func TestUnreadableStateIsQuarantinedAndEdgedKeepsRunning(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s, coll, e := crashUp(t, bin, mq.URL(), "corrupt")
	const n = 4000
	events := crashEvents(11, n)
	var acked atomic.Int64
	if err := crashPublish(t, s, events, 0, n/2, &acked); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 30*time.Second, "results of the first half", func() bool {
		r, _, _ := coll.snapshot()
		return len(r) > 100
	})
	if code := e.term(); code != 0 {
		t.Fatalf("edged exited %d after SIGTERM", code)
	}
	broken := crashCorrupt(t, s.dataDir)
	t.Logf("corrupted: %v", broken)

	e.start()
	harness.Eventually(t, 10*time.Second, "two windows quarantined", func() bool {
		return e.metric("edged_quarantined_windows_total") == 2
	})
	if got := e.metric("edged_unreadable_state_total"); got != 1 {
		t.Errorf("edged_unreadable_state_total = %v, want 1 (the stream state of version 99)", got)
	}
	for _, want := range []string{"quarantined a saved window that does not decode", "unknown encoding version", "bad end", "state version 99"} {
		if e.logs.count(want) == 0 {
			t.Errorf("log lacks %q", want)
		}
	}
	seen := len(crashMust(coll.snapshot()))
	if err := crashPublish(t, s, events, n/2, n, &acked); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 30*time.Second, "results of the second half", func() bool {
		return len(crashMust(coll.snapshot())) > seen+100
	})
}

func crashMust(r []harness.Result, _ map[int]bool, _ []string) []harness.Result { return r }

// crashCorrupt damages a stopped edged's state: one window with a bad frame, one
// whose operator encoding has an unknown version, one stream with an unknown
// encoding version.
func crashCorrupt(t testing.TB, dir string) []string {
	t.Helper()
	st, err := persist.Open(persist.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := st.LoadDevice(crashDevice)
	if err != nil {
		t.Fatal(err)
	}
	var wins []persist.WindowKey
	for _, ks := range ds.Keys {
		for _, w := range ks.Windows {
			wins = append(wins, persist.WindowKey{Device: crashDevice, Window: ks.Window, Key: ks.Key, Start: w.Start})
		}
	}
	if len(wins) < 2 || len(ds.Streams) == 0 {
		t.Fatalf("want 2 open windows and a stream to corrupt, have %d and %d", len(wins), len(ds.Streams))
	}
	b := st.NewBatch()
	b.PutWindow(wins[0], []byte{0xff, 0xff})
	b.PutWindow(wins[1], append(binary.AppendVarint(nil, wins[1].Start+crashWindowMS), 99, 0, 0))
	if err := st.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	var stream string
	for stream = range ds.Streams {
		break
	}
	crashPutRaw(t, dir, crashStreamKey(crashDevice, stream), []byte{99, 1, 2, 3})
	return []string{fmt.Sprint(wins[0]), fmt.Sprint(wins[1]), stream}
}

// crashStreamKey is persist's key of a stream's generator state (persist/keys.go):
// tag 's', then each name followed by 0x00 0x01.
func crashStreamKey(device, stream string) []byte {
	k := append([]byte{'s'}, device...)
	k = append(k, 0, 1)
	k = append(k, stream...)
	return append(k, 0, 1)
}

// crashPutRaw writes a value persist's API would never write, such as one with
// an encoding version from the future.
func crashPutRaw(t testing.TB, dir string, key, val []byte) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set(key, val) }); err != nil {
		t.Fatal(err)
	}
}

// A broker restart is not a crash of edged, but the broker redelivers, flagged
// duplicate, every message edged had not acknowledged yet, and some of those are
// applied and waiting for their commit: they must count once.
func TestBrokerRestartMidStreamCountsNothingTwice(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s, coll, e := crashUp(t, bin, mq.URL(), "brokerrestart")
	n := crashReadings / 5
	events := crashEvents(5, n)
	var acked atomic.Int64
	if err := crashPublish(t, s, events, 0, n/2, &acked); err != nil {
		t.Fatal(err)
	}
	mq.Restart()
	if err := crashPublish(t, s, events, n/2, n, &acked); err != nil {
		t.Fatal(err)
	}
	crashReport(t, crashAwait(t, coll, events, false))
	t.Logf("%v redelivered duplicates skipped", e.metric("edged_duplicates_skipped_total"))
}
