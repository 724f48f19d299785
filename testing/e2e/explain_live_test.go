package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

// explainAnswer is what the test reads of /explain.
type explainAnswer struct {
	State      string `json:"state"`
	HeldBackBy string `json:"held_back_by"`
	Watermark  *int64 `json:"watermark"`
	Streams    []struct {
		Stream string `json:"stream"`
	} `json:"streams"`
	Windows []struct {
		Start    int64  `json:"start"`
		State    string `json:"state"`
		Results  int    `json:"results"`
		PurgedAt *int64 `json:"purged_at_watermark"`
		WaitsFor *struct {
			Streams         []string `json:"streams"`
			ReadingAtOrPast *int64   `json:"reading_at_or_past"`
			AtCurrentRate   *struct {
				At *int64 `json:"at"`
			} `json:"at_current_rate"`
			IfSilent *struct {
				At *int64 `json:"at"`
			} `json:"if_silent"`
		} `json:"waits_for"`
		Why string `json:"why"`
	} `json:"windows"`
}

// A running edged answers /explain: a fleet-wide key fed by two sensors waits for
// the one behind, which /explain names with what it needs; once that sensor's
// reading passes the window's end, /explain shows the window fired.
func TestExplainOnARunningEdgedNamesTheSensorHoldingAWindowBackThenShowsItFired(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	prefix := fmt.Sprintf("explain-%d", time.Now().UnixNano())
	dir := t.TempDir()
	config := filepath.Join(dir, "edged.yaml")
	crashWriteFile(t, config, fmt.Sprintf(`
data_dir: %s
commit_interval: 20ms
devices_dir: devices
http: {listen: "127.0.0.1:0"}
broker: {url: %q, client_id: %s-edged}
`, filepath.Join(dir, "data"), mq.URL(), prefix))
	crashWriteFile(t, filepath.Join(dir, "devices", "site.yaml"), fmt.Sprintf(`
device: site
streams:
  - name: s
    topic: %s/+/data
    qos: 1
    timestamp: {field: ts, unit: ms}
    key: {field: site}
    watermark: {strategy: bounded, max_out_of_orderness: 500ms, interval: 20ms, idle_timeout: 1h, max_future_skew: 0s}
windows:
  - name: w10
    stream: s
    type: tumbling
    size: 10s
    allowed_lateness: 5s
    aggregates: [count]
`, prefix))
	e := crashStart(t, bin, config)

	const base = int64(1733140800000) // 2024-12-02T12:00:00Z
	s1, s2 := prefix+"/s-1/data", prefix+"/s-2/data"
	pub := plPublish(t, mq.URL())
	reading := func(topic string, ts int64) {
		pub.send(topic, fmt.Appendf(nil, `{"site":"A","ts":%d}`, ts))
	}
	// s-2 feeds the key first; then s-1 passes the first window's end, which waits
	// for s-2.
	explainURL := "http://" + e.httpAddr + "/explain?" + url.Values{"window": {"w10"}, "key": {"A"}}.Encode()
	var got explainAnswer
	reading(s2, base+2000)
	pub.flush()
	harness.Eventually(t, 30*time.Second, "/explain shows key A fed by s-2", func() bool {
		got = explainGet(t, explainURL)
		return got.State == "live" && len(got.Streams) == 1
	})
	reading(s1, base+1000)
	reading(s1, base+12_000)
	pub.flush()
	// Both streams: before s-1's readings reach the key, s-2 alone holds it back too.
	harness.Eventually(t, 30*time.Second, "/explain shows the first window waiting for s-2", func() bool {
		got = explainGet(t, explainURL)
		return got.HeldBackBy == s2 && len(got.Streams) == 2 && len(got.Windows) > 0 && got.Windows[0].State == "pending" &&
			got.Windows[0].WaitsFor != nil
	})
	w := got.Windows[0]
	if got.State != "live" || w.Start != base || !slices.Equal(w.WaitsFor.Streams, []string{s2}) || *w.WaitsFor.ReadingAtOrPast != base+10_500 ||
		w.WaitsFor.AtCurrentRate == nil || w.WaitsFor.IfSilent == nil || w.WaitsFor.IfSilent.At == nil {
		t.Fatalf("the pending window: %+v\n%s", got, w.Why)
	}
	t.Logf("pending: %s", w.Why)

	reading(s2, base+11_000)
	pub.flush()
	harness.Eventually(t, 30*time.Second, "/explain shows the first window fired", func() bool {
		got = explainGet(t, explainURL)
		return len(got.Windows) > 0 && got.Windows[0].State == "fired"
	})
	if w := got.Windows[0]; w.Start != base || w.Results != 1 || *w.PurgedAt != base+9999+5000 {
		t.Errorf("the fired window: %+v", w)
	}

	resp, err := http.Get("http://" + e.httpAddr + "/explain?window=nope&key=A")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !json.Valid(body) {
		t.Errorf("an unknown window: %d %s", resp.StatusCode, body)
	}
}

func explainGet(t *testing.T, u string) explainAnswer {
	t.Helper()
	var a explainAnswer
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s: %d %s", u, resp.StatusCode, body)
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	return a
}
