package actors

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/edged/edged/persist"
)

// churnFeed is tags that come and go: cohorts of size tags, a new one every cohortMS
// of processing time, each tag reporting every 100 ms for lifeMS, on one topic with
// the tag in the payload (perTopic false) or on a topic of its own.
func churnFeed(cohorts, size int, cohortMS, lifeMS int64, perTopic bool) string {
	const t0 int64 = 1_733_140_000_000
	type line struct {
		at  int64
		tag int
	}
	var lines []line
	for c := range cohorts {
		for i := range size {
			for at := int64(c) * cohortMS; at < int64(c)*cohortMS+lifeMS; at += 100 {
				lines = append(lines, line{at, c*size + i})
			}
		}
	}
	// By time, then tag: the cohorts overlap.
	var b strings.Builder
	for at := int64(0); at < int64(cohorts)*cohortMS+lifeMS; at += 100 {
		for _, l := range lines {
			if l.at != at {
				continue
			}
			topic := "tags"
			if perTopic {
				topic = fmt.Sprintf("tags/g%d", l.tag)
			}
			fmt.Fprintf(&b, `{"at":%d,"topic":%q,"payload":{"tag":"g%d","ts":%d}}`+"\n", t0+at, topic, l.tag, t0+at)
		}
	}
	return b.String()
}

const churnDevice = `device: d
streams:
  - name: tags
    topic: %s
    timestamp: {field: ts, unit: ms}
    key: %s
    watermark: {max_out_of_orderness: 0s, interval: 100ms, idle_timeout: 500ms}
windows:
  - {name: w, stream: tags, type: tumbling, size: 1s, aggregates: [count], output: {topic: "o/{key}"}}
`

// TestChurningKeysNeverMeetTheKeyLimit checks that the key limit bounds the keys
// alive, not the keys ever seen: 40 cohorts of 20 tags, each living 3 s, with a
// limit of 100 keys, give every tag-second window and refuse nothing, whether the
// tags share a topic or each has its own.
func TestChurningKeysNeverMeetTheKeyLimit(t *testing.T) {
	for _, perTopic := range []bool{false, true} {
		t.Run(fmt.Sprint("perTopic=", perTopic), func(t *testing.T) {
			topic, key := "tags", "{field: tag}"
			if perTopic {
				topic, key = "tags/+", "{topic_segment: 1}"
			}
			cfg := replayConfig(t, fmt.Sprintf(churnDevice, topic, key))
			cfg.Limits.MaxKeysPerWindow = 100
			var out bytes.Buffer
			var passivated, streams float64
			o := ReplayOptions{Config: cfg, Input: strings.NewReader(churnFeed(40, 20, 1000, 3000, perTopic)), Output: &out}
			o.Metrics = NewMetrics()
			if _, err := Replay(o); err != nil {
				t.Fatal(err)
			}
			passivated = counterSum(t, o.Metrics, "edged_window_passivations_total")
			streams = counterSum(t, o.Metrics, "edged_stream_passivations_total")
			if n := strings.Count(out.String(), `"key_limit"`); n > 0 {
				t.Errorf("%d readings refused for the key limit", n)
			}
			// Each tag reports for 3 s from a whole second: three full windows.
			if n, want := strings.Count(out.String(), `"kind":"on_time"`), 40*20*3; n != want {
				t.Errorf("%d windows produced, want %d", n, want)
			}
			if passivated < 40*20-100 {
				t.Errorf("%v keys passivated, want most of the 800", passivated)
			}
			if perTopic && streams < 40*20-100 {
				t.Errorf("%v sources passivated, want most of the 800", streams)
			}
		})
	}
}

// TestAForgottenTopicStartsAsANewStream checks limits.stream_retention: a topic that
// sent nothing for that long loses its saved state, and its next reading, which the
// old watermark would have judged late, starts a new stream.
func TestAForgottenTopicStartsAsANewStream(t *testing.T) {
	const t0 int64 = 1_733_140_000_000
	cfg := replayConfig(t, fmt.Sprintf(churnDevice, "tags/+", "{topic_segment: 1}"))
	cfg.Limits.StreamRetention = 10_000_000_000 // 10 s
	dir := t.TempDir()
	var in strings.Builder
	for at := int64(0); at < 2000; at += 100 {
		fmt.Fprintf(&in, `{"at":%d,"topic":"tags/a","payload":{"ts":%d}}`+"\n", t0+at, t0+at)
	}
	// b keeps the clock going while a is quiet, past its retention.
	for at := int64(2000); at < 20_000; at += 100 {
		fmt.Fprintf(&in, `{"at":%d,"topic":"tags/b","payload":{"ts":%d}}`+"\n", t0+at, t0+at)
	}
	// a comes back with a reading older than the watermark it had.
	fmt.Fprintf(&in, `{"at":%d,"topic":"tags/a","payload":{"ts":%d}}`+"\n", t0+20_000, t0+500)
	var out bytes.Buffer
	var forgotten float64
	o := ReplayOptions{Config: cfg, Input: strings.NewReader(in.String()), Output: &out, DataDir: dir, KeepOpen: true}
	o.Metrics = NewMetrics()
	if _, err := Replay(o); err != nil {
		t.Fatal(err)
	}
	forgotten = counterSum(t, o.Metrics, "edged_stream_topics_forgotten_total")
	if forgotten != 1 {
		t.Errorf("%v topics forgotten, want 1", forgotten)
	}
	if strings.Contains(out.String(), `"late"`) {
		t.Errorf("the forgotten topic's reading went to the late output:\n%s", out.String())
	}
	// Its new state is the new stream's: the old one was deleted.
	store, err := persist.Open(persist.Options{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	st, ok, err := store.LoadStreamState("d", "tags/a")
	if err != nil || !ok || st.Max != t0+500 {
		t.Errorf("tags/a saved %+v (%v, %v), want the new stream's, max event time %d", st, ok, err, int64(t0+500))
	}
}

// TestARestartLeavesIdleTopicsAsleep checks that a restart brings back only the
// topics that were active: an idle one stays passivated until it sends again.
func TestARestartLeavesIdleTopicsAsleep(t *testing.T) {
	const t0 int64 = 1_733_140_000_000
	cfg := replayConfig(t, fmt.Sprintf(churnDevice, "tags/+", "{topic_segment: 1}"))
	dir := t.TempDir()
	day := func(from, to int64, topics int) string {
		var b strings.Builder
		for at := from; at < to; at += 100 {
			for i := range topics {
				fmt.Fprintf(&b, `{"at":%d,"topic":"tags/t%d","payload":{"ts":%d}}`+"\n", t0+at, i, t0+at)
			}
		}
		return b.String()
	}
	replay := func(in string) (live, passive float64) {
		var out bytes.Buffer
		o := ReplayOptions{Config: cfg, Input: strings.NewReader(in), Output: &out, DataDir: dir, KeepOpen: true,
			keyDelay: func(int) int64 { return -1 }, sourceDelay: func(int) int64 { return -1 }}
		o.Metrics = NewMetrics()
		if _, err := Replay(o); err != nil {
			t.Fatal(err)
		}
		return gaugeSum(t, o.Metrics, "edged_stream_topics"), gaugeSum(t, o.Metrics, "edged_stream_topics_passivated")
	}
	// 50 topics report, then only 5 of them, long enough for the rest to go idle.
	replay(day(0, 2000, 50) + day(2000, 5000, 5))
	topics, passive := replay(day(5000, 5200, 5))
	if topics != 50 || passive != 45 {
		t.Errorf("after the restart: %v topics, %v passivated; want 50 remembered, the 45 idle ones passivated", topics, passive)
	}
	topics, passive = replay(day(5200, 5400, 50))
	if topics != 50 || passive != 0 {
		t.Errorf("once every topic sent again: %v topics, %v passivated; want 50, none", topics, passive)
	}
}

// gaugeSum adds up every series of the gauge named name.
func gaugeSum(t *testing.T, m *Metrics, name string) float64 {
	t.Helper()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() == name {
			for _, s := range f.GetMetric() {
				sum += s.GetGauge().GetValue()
			}
		}
	}
	return sum
}
