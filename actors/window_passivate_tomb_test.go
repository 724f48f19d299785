package actors

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestAKeyKeepsTheTombOfASessionStartWhileALateReadingCouldReviveIt replays
// windows/testdata/session_revival.txt's canonical case through a window actor that
// passivates as soon as it may: [0, 10 s) fires and is purged, the key holds no
// window for a while, then a reading at 5 s opens a session and a late one at 0 s
// bridges into it, taking the purged session's start. The key must not be
// passivated while it holds the tomb of that start, or the merged session, new
// to a key that came back, would fire revision 0 and a consumer would keep the
// purged session's row. The output must be the unpassivated actor's, with the
// merged session at revision 1, and the key must be passivated once the tomb is
// gone.
func TestAKeyKeepsTheTombOfASessionStartWhileALateReadingCouldReviveIt(t *testing.T) {
	const t0 int64 = 1_733_140_000_000
	device := `device: d
streams:
  - name: s
    topic: s/+
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {max_out_of_orderness: 0s, interval: 100ms, idle_timeout: 1h, max_future_skew: 0s}
windows:
  - {name: ses, stream: s, type: session, gap: 10s, aggregates: [count], output: {topic: "o/{key}"}}
`
	var in strings.Builder
	line := func(at, ts int64) {
		fmt.Fprintf(&in, `{"at":%d,"topic":"s/a","payload":{"ts":%d}}`+"\n", t0+at, t0+ts)
	}
	mark := func(at, wm int64) {
		fmt.Fprintf(&in, `{"at":%d,"stream":"s/a","watermark":%d}`+"\n", t0+at, t0+wm)
	}
	line(0, 0)
	mark(100, 9_999) // [0, 10 s) fires and is purged
	for at := int64(200); at < 5_000; at += 100 {
		mark(at, 9_999) // time passes: the key holds no window
	}
	line(5_000, 5_000) // its own [5 s, 15 s) is live: a session opens
	line(5_100, 0)     // late for [0, 10 s), bridges into [5 s, 15 s)
	mark(5_200, 14_999)
	for at := int64(5_300); at < 10_000; at += 100 {
		mark(at, 20_000) // the tomb of [0, 15 s) expires: 0 + 2 gaps
	}
	replay := func(delay int64) (string, float64) {
		var out bytes.Buffer
		o := ReplayOptions{Config: replayConfig(t, device), Input: strings.NewReader(in.String()), Output: &out,
			keyDelay: func(int) int64 { return delay }, sourceDelay: func(int) int64 { return -1 }}
		o.Metrics = NewMetrics()
		if _, err := Replay(o); err != nil {
			t.Fatal(err)
		}
		return out.String(), counterSum(t, o.Metrics, "edged_window_passivations_total")
	}
	want, _ := replay(-1)
	got, passivated := replay(0)
	if got != want {
		t.Fatalf("output with passivation differs:\n%s", firstDifference(got, want))
	}
	if !strings.Contains(got, fmt.Sprintf(`"start":%d,"end":%d,"revision":1,"kind":"on_time"`, t0, t0+15_000)) {
		t.Errorf("no merged session [0, 15 s) at revision 1 in\n%s", got)
	}
	if passivated != 1 {
		t.Errorf("the key was passivated %v times, want once, after its tombs went", passivated)
	}
}
