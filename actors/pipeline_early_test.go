package actors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/edged/edged/configs"
)

const earlyDevice = `
device: d
streams:
  - name: s
    topic: t/+
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 0s, interval: 10ms}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 1m
    early: 1s
    aggregates: [count]
`

// A replay of two keys, one reading each every 400 ms for 2.4 s (a quiet key b
// after 1 s): each second, the keys that changed fire early with the revision
// sequence running on into the on-time firing; a key that did not change stays
// quiet; the same input gives the same bytes.
func TestEarlyFiringsInReplayFollowTheVirtualClock(t *testing.T) {
	dev, err := configs.ParseDevice("dev.yaml", []byte(earlyDevice))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &configs.Daemon{CommitInterval: 100_000_000, DedupTTL: 3600_000_000_000,
		Limits: configs.Limits{MaxInflight: 1000}, Devices: []*configs.Device{dev}}
	const t0 int64 = 1_733_140_020_000 // inside the window [..000000, ..060000)
	var in strings.Builder
	for at := int64(0); at <= 2_500; at += 400 {
		keys := []string{"a", "b"}
		if at > 1_000 {
			keys = keys[:1]
		}
		for _, k := range keys {
			fmt.Fprintf(&in, `{"at":%d,"topic":"t/%s","payload":{"ts":%d}}`+"\n", 100+at, k, t0+at)
		}
	}
	run := func() string {
		var out bytes.Buffer
		if _, err := Replay(ReplayOptions{Config: cfg, Input: strings.NewReader(in.String()), Output: &out}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	got := run()
	if again := run(); again != got {
		t.Fatalf("two replays differ:\n%s\n---\n%s", got, again)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
		r, err := parseTestResult(l)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, r)
	}
	want := []string{
		"a r0 early count=3 at=1000",
		"b r0 early count=3 at=1000",
		"a r1 early count=5 at=2000",
		"a r2 on_time count=7 at=2500",
		"b r1 on_time count=3 at=2500",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(lines, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func parseTestResult(line string) (string, error) {
	var r struct {
		Key      string
		Revision int
		Kind     string
		Values   map[string]float64
		At       int64 `json:"emitted_at"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		return "", fmt.Errorf("result %q: %w", line, err)
	}
	return fmt.Sprintf("%s r%d %s count=%v at=%d", r.Key, r.Revision, r.Kind, r.Values["count"], r.At), nil
}
