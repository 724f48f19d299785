package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
)

// The live reload suite: edged as a child process under a QoS 1 feed while its
// device files change under it; the window that stays is checked against the
// oracle, as in the crash suite.
//
//	go test ./testing/e2e -run 'Reload' -v

// reloadWait bounds the wait for one reload: the watcher's debounce plus the
// commit of what the changed device holds.
const reloadWait = 30 * time.Second

func TestLiveReloadUnderAQoS1FeedLosesNothing(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := crashConfig(t, mq.URL(), fmt.Sprintf("reload-%d", time.Now().UnixNano()))
	devices := filepath.Join(filepath.Dir(s.config), "devices")
	crashFile := filepath.Join(devices, "crash.yaml")
	original, err := os.ReadFile(crashFile)
	if err != nil {
		t.Fatal(err)
	}
	// A second device, removed mid-feed.
	crashWriteFile(t, filepath.Join(devices, "gone.yaml"), strings.NewReplacer("device: crash", "device: gone",
		"/+/data", "/gone-pub/+/data", "/out/{key}", "/out/gone/{key}").Replace(string(original)))
	coll := crashCollect(t, s)
	e := crashStart(t, bin, s.config)

	const n = 40_000
	events := crashEvents(7, n)
	// The device to be removed takes a few readings, so /status lists it.
	var goneAcked atomic.Int64
	if err := crashPublish(t, crashSetup{broker: s.broker, prefix: s.prefix + "/gone-pub"}, events[:10], 0, 10, &goneAcked); err != nil {
		t.Fatal(err)
	}
	reloadEventually(t, "/status to list the device gone", func() bool { return reloadLists(t, e.httpAddr, "gone") })
	var acked atomic.Int64
	pubDone := make(chan error, 1)
	go func() { pubDone <- crashPublish(t, s, events, 0, n, &acked) }()

	// generation counts the configs applied, not the reloads (an editor's save can
	// make two, the second changing nothing).
	generation := func(want int64) {
		t.Helper()
		reloadEventually(t, fmt.Sprintf("config generation %d", want), func() bool {
			return reloadStatus(t, e.httpAddr).Config.Generation >= want
		})
	}
	at := func(frac float64) {
		t.Helper()
		want := int64(frac * float64(n))
		harness.Eventually(t, 2*time.Minute, fmt.Sprintf("%d readings acknowledged", want), func() bool { return acked.Load() >= want })
	}
	withW2 := strings.Replace(string(original), "windows:\n", `windows:
  - {name: w2, stream: s, type: tumbling, size: 5s, aggregates: [count], output: {topic: "`+s.prefix+`/out/w2/{key}", qos: 1}}
`, 1)

	at(0.15) // add a window: the device restarts, w keeps its state
	crashWriteFile(t, crashFile, withW2)
	generation(2)
	at(0.35) // remove a device
	if err := os.Remove(filepath.Join(devices, "gone.yaml")); err != nil {
		t.Fatal(err)
	}
	generation(3)
	at(0.55) // change the bound: the stream changes, its windows keep their state
	crashWriteFile(t, crashFile, strings.Replace(withW2, "max_out_of_orderness: 200ms", "max_out_of_orderness: 400ms", 1))
	generation(4)
	at(0.75) // an invalid edit is refused; the running config stays
	crashWriteFile(t, crashFile, strings.Replace(withW2, "size: 5s", "size: -5s", 1))
	reloadEventually(t, "the invalid config refused", func() bool {
		return upMetric(t, e.httpAddr, "edged_config_reloads_total", map[string]string{"result": "refused"}) >= 1
	})
	if running := acked.Load(); running >= int64(n) {
		t.Logf("the feed ended before the last reload (%d readings); the reloads were not all under load", running)
	}
	if err := <-pubDone; err != nil {
		t.Fatal(err)
	}
	// SIGHUP reloads too: the file is still invalid, so it is refused again.
	if err := e.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	reloadEventually(t, "SIGHUP's reload refused", func() bool {
		return upMetric(t, e.httpAddr, "edged_config_reloads_total", map[string]string{"result": "refused"}) >= 2
	})

	v := reloadAwait(t, coll, events)
	results, _, _ := coll.snapshot()
	crashReport(t, v)

	st := reloadStatus(t, e.httpAddr)
	if st.Config.Generation != 4 || st.Config.LastReload != "refused" || !regexp.MustCompile(`crash\.yaml:\d+: `).MatchString(st.Config.LastError) {
		t.Errorf("/status config after the reloads: %+v", st.Config)
	}
	reloadEventually(t, "/status to forget the removed device", func() bool { return !reloadLists(t, e.httpAddr, "gone") })
	w2 := 0
	for _, r := range results {
		if r.Window == "w2" {
			w2++
		}
	}
	if w2 == 0 {
		t.Error("the added window w2 published nothing")
	}
	var tooks []string
	for _, m := range regexp.MustCompile(`config applied".* took=(\S+) messages_held=(\S+)`).FindAllStringSubmatch(e.logs.String(), -1) {
		tooks = append(tooks, m[1]+" (changed devices held "+m[2]+")")
	}
	t.Logf("%d readings, %d windows right, %d results of w2; reloads took %v", n, v.windows, w2, tooks)
}

// reloadAwait is crashAwait over the results of the window that was never changed.
func reloadAwait(t testing.TB, coll *crashCollector, events []oracle.Event) crashVerdict {
	t.Helper()
	deadline := time.Now().Add(crashFinalTimeout)
	for {
		results, late, bad := coll.snapshot()
		if len(bad) > 0 {
			t.Fatalf("%d malformed messages on the output topics, first: %s", len(bad), bad[0])
		}
		var kept []harness.Result
		for _, r := range results {
			if r.Device == crashDevice && r.Window == "w" {
				kept = append(kept, r)
			}
		}
		v := crashCheck(t, events, kept, late, true)
		if len(v.problems) == 0 || time.Now().After(deadline) {
			return v
		}
		time.Sleep(250 * time.Millisecond) // the poll interval of a wait bounded by deadline
	}
}

func reloadEventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(reloadWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", reloadWait, what)
		}
		time.Sleep(50 * time.Millisecond) // a poll interval (each poll scrapes /metrics)
	}
}

// reloadLists says whether /status lists a stream of device.
func reloadLists(t testing.TB, addr, device string) bool {
	for _, s := range reloadStatus(t, addr).Streams {
		if s.Device == device {
			return true
		}
	}
	return false
}

type reloadStatusDoc struct {
	Streams []struct{ Device, Stream string }
	Config  struct {
		Generation int64  `json:"generation"`
		LastReload string `json:"last_reload"`
		LastError  string `json:"last_error"`
	} `json:"config"`
}

func reloadStatus(t testing.TB, addr string) reloadStatusDoc {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st reloadStatusDoc
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}
