package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

// The poison suite: one bad input (a key, a topic, a config, a first reading) must
// cost only itself, never the device or the connection every device shares. edged
// runs as a child process against a real Mosquitto.

// poisonBaseTS is the event time the suite's readings start at: a window boundary.
const poisonBaseTS = 1_733_140_000_000

// poisonSetup is one test's topic prefix and daemon file.
type poisonSetup struct {
	prefix string
	config string
}

// poisonConfig writes a daemon file (with extra appended) and a device file per
// device, for topics under prefix. A device's stream takes <prefix>/<device>/+/data, its key from the
// payload field k, and fires a 1 s tumbling count on <prefix>/out/{device}/{key};
// a quiet stream's watermark advances after 200 ms, so every window fires.
func poisonConfig(t testing.TB, url, prefix, extra string, devices ...string) poisonSetup {
	t.Helper()
	s := poisonSetup{prefix: prefix}
	files := map[string]string{}
	for _, d := range devices {
		files[d+".yaml"] = fmt.Sprintf(`
device: %[1]s
streams:
  - name: s
    topic: %[2]s/%[1]s/+/data
    qos: 1
    timestamp: {field: ts, unit: ms}
    key: {field: k}
    watermark: {strategy: bounded, max_out_of_orderness: 0ms, interval: 20ms, idle_timeout: 200ms, idle_mode: advance}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 1s
    aggregates: [count]
    output: {topic: "%[2]s/out/{device}/{key}", qos: 1}
`, d, s.prefix)
	}
	s.config = harness.WriteConfig(t, fmt.Sprintf(`
data_dir: data
durability: process
commit_interval: 20ms
log: {level: info}
http: {listen: "127.0.0.1:0"}
broker: {url: %q, client_id: %s-edged}
%s`, url, s.prefix, extra), files)
	return s
}

// topic is the topic sensor publishes to for device.
func (s poisonSetup) topic(device, sensor string) string {
	return fmt.Sprintf("%s/%s/%s/data", s.prefix, device, sensor)
}

// poisonReading is a reading of key at ts; n makes every payload unique.
func poisonReading(key string, ts int64, n int) []byte {
	k, _ := json.Marshal(key)
	return fmt.Appendf(nil, `{"ts":%d,"k":%s,"n":%d}`, ts, k, n)
}

// poisonCounts sums the count of every result the collector got, by topic and by
// the key the record carries.
func poisonCounts(t testing.TB, c *plCollector) (byTopic, byKey map[string]float64) {
	t.Helper()
	c.mu.Lock()
	msgs := append([]plMessage(nil), c.msgs...)
	c.mu.Unlock()
	byTopic, byKey = map[string]float64{}, map[string]float64{}
	for _, m := range msgs {
		var r struct {
			Key    string             `json:"key"`
			Values map[string]float64 `json:"values"`
		}
		if err := json.Unmarshal(m.Payload, &r); err != nil {
			t.Fatalf("result on %q: %v", m.Topic, err)
		}
		byTopic[m.Topic] += r.Values["count"]
		byKey[r.Key] += r.Values["count"]
	}
	return byTopic, byKey
}

// poisonMetric is upMetric with labels written as `name="value"`.
func poisonMetric(t testing.TB, e *crashEdged, name string, labels ...string) float64 {
	t.Helper()
	match := map[string]string{}
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		match[k], _ = strconv.Unquote(v)
	}
	return upMetric(t, e.httpAddr, name, match)
}

func TestPoisonKeysDoNotBreakOtherDevicesAndArriveOnEscapedTopics(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := poisonConfig(t, mq.URL(), faultPrefix("poison-keys"), "", "dev", "other")
	results := plCollect(t, mq.URL(), s.prefix+"/out/#", false)
	e := crashStart(t, bin, s.config)
	pub := plPublish(t, mq.URL())

	// Each key's readings come from a sensor of its own, so each has its own
	// watermark; the escaped topic is the documented, reversible form.
	keys := map[string]string{
		"good":   "good",
		"a#b":    "a%23b",
		"a+b":    "a%2Bb",
		"a\x00b": "a%00b",
		"a/b/c":  "a%2Fb%2Fc",
		"$SYS":   "%24SYS",
		"100%":   "100%25",
	}
	n, sensor := 0, 0
	for k := range keys {
		sensor++
		for i := range 4 {
			n++
			pub.send(s.topic("dev", fmt.Sprint("s", sensor)), poisonReading(k, poisonBaseTS+int64(i)*400, n))
		}
	}
	for i := range 4 {
		n++
		pub.send(s.topic("other", "s0"), poisonReading("fine", poisonBaseTS+int64(i)*400, n))
	}
	pub.flush()

	want := map[string]float64{s.prefix + "/out/other/fine": 4}
	for _, escaped := range keys {
		want[s.prefix+"/out/dev/"+escaped] = 4
	}
	progress := func() string {
		got, _ := poisonCounts(t, results)
		return fmt.Sprintf("counts by topic %v, want %v", got, want)
	}
	upEventually(t, 30*time.Second, func() bool {
		got, _ := poisonCounts(t, results)
		for topic, c := range want {
			if got[topic] != c {
				return false
			}
		}
		return len(got) == len(want)
	}, progress)
	_, byKey := poisonCounts(t, results)
	for k := range keys {
		if byKey[k] != 4 {
			t.Errorf("records carrying key %q count %v readings, want 4: the record keeps the raw key", k, byKey[k])
		}
	}
	if got := e.logs.count("mqtt connection lost"); got != 0 {
		t.Errorf("edged lost its broker connection %d times", got)
	}
	if got := poisonMetric(t, e, "edged_publish_refused_total"); got != 0 {
		t.Errorf("edged_publish_refused_total = %v, want 0: escaped topics are all valid", got)
	}
}

// poisonSlidingDevice is a device with one affordable sliding window.
const poisonSlidingDevice = `device: dev
streams:
  - name: s
    topic: poison-config/+/data
    timestamp: {field: ts, unit: ms}
windows:
  - name: ok
    stream: s
    type: sliding
    size: 1m
    slide: 10s
    aggregates: [count]
`

func TestPoisonConfigOfAMillionWindowsPerRecordIsRefusedBeforeItRuns(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	config := harness.WriteConfig(t, fmt.Sprintf("data_dir: data\nhttp: {listen: \"127.0.0.1:0\"}\nbroker: {url: %q, client_id: poison-config-%d}\n", mq.URL(), time.Now().UnixNano()),
		map[string]string{"dev.yaml": poisonSlidingDevice + `  - name: exploding
    stream: s
    type: sliding
    size: 1h
    slide: 1ms
    aggregates: [count]
`})
	want := "devices/dev.yaml:17: windows[1].slide: size 1h0m0s / slide 1ms puts every record in 3600000 windows, more than 1000"
	for _, cmd := range []string{"validate", "run"} {
		code, out := crashRun(t, bin, 30*time.Second, cmd, "--config", config)
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("edged %s: exit %d, output:\n%s\nwant exit 1 and %q", cmd, code, out, want)
		}
	}

	// Without the exploding window, validate passes and estimates the cost of each.
	crashWriteFile(t, strings.TrimSuffix(config, "edged.yaml")+"devices/dev.yaml", poisonSlidingDevice)
	code, out := crashRun(t, bin, 30*time.Second, "validate", "--config", config)
	if code != 0 || !strings.Contains(out, "dev/ok: sliding 1m0s/10s, 6 window(s) per record") {
		t.Errorf("edged validate: exit %d, output:\n%s\nwant exit 0 and an estimate of 6 windows per record", code, out)
	}
}

func TestPoisonFirstReadingFromTheYear9999IsRejectedAsFuture(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := poisonConfig(t, mq.URL(), faultPrefix("poison-future"), "", "dev") // max_future_skew: the default 1h
	results := plCollect(t, mq.URL(), s.prefix+"/out/#", false)
	e := crashStart(t, bin, s.config)
	pub := plPublish(t, mq.URL())

	// The sensor's very first reading carries a broken clock; then it behaves.
	const year9999 = 253_402_300_799_000
	pub.send(s.topic("dev", "s1"), poisonReading("k", year9999, 0))
	now := time.Now().UnixMilli()
	base := now - now%1000 - 5000
	const readings = 20
	for i := range readings {
		pub.send(s.topic("dev", "s1"), poisonReading("k", base+int64(i)*200, i+1))
	}
	pub.flush()

	upEventually(t, 30*time.Second, func() bool {
		_, byKey := poisonCounts(t, results)
		return byKey["k"] == readings
	}, func() string {
		_, byKey := poisonCounts(t, results)
		return fmt.Sprintf("the normal readings counted %v times in results, want %d; edged_late_total{reason=future} = %v",
			byKey["k"], readings, poisonMetric(t, e, "edged_late_total", `reason="future"`))
	})
	if got := poisonMetric(t, e, "edged_late_total", `reason="future"`); got != 1 {
		t.Errorf("edged_late_total{reason=future} = %v, want 1", got)
	}
	if got := poisonMetric(t, e, "edged_late_total", `reason="too_late"`); got != 0 {
		t.Errorf("edged_late_total{reason=too_late} = %v, want 0: no normal reading is late", got)
	}
	if wm := poisonMetric(t, e, "edged_watermark_seconds"); wm > float64(time.Now().Unix()) {
		t.Errorf("the stream's watermark is %v, in the future", wm)
	}
}

func TestPoisonKeyOf65KBDoesNotStallTheDevice(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	prefix := faultPrefix("poison-long")
	s := poisonConfig(t, mq.URL(), prefix, fmt.Sprintf(`upstream:
  url: %q
  client_id: %s-uplink
  topic_prefix: %s/cloud
  batch: {max_records: 10, max_delay: 10ms}
`, mq.URL(), prefix, prefix), "dev")
	results := plCollect(t, mq.URL(), s.prefix+"/out/#", false)
	cloud := plCollect(t, mq.URL(), s.prefix+"/cloud/#", false)
	e := crashStart(t, bin, s.config)
	pub := plPublish(t, mq.URL())

	// Within limits.max_payload (64KiB) but over Badger's 65,000-byte keys: a key
	// that long, and a topic that long, each made every commit of the device fail.
	long := strings.Repeat("x", 65_100)
	pub.send(s.topic("dev", "s1"), poisonReading(long, poisonBaseTS, 1))
	pub.send(s.topic("dev", long), poisonReading("long-topic", poisonBaseTS, 2))
	for i := range 4 {
		pub.send(s.topic("dev", "s2"), poisonReading("good", poisonBaseTS+int64(i)*400, 10+i))
	}
	pub.flush()

	upEventually(t, 30*time.Second, func() bool {
		_, byKey := poisonCounts(t, results)
		return byKey["good"] == 4 && len(cloud.late(t)) == 1 && poisonMetric(t, e, "edged_inflight_messages") == 0
	}, func() string {
		_, byKey := poisonCounts(t, results)
		return fmt.Sprintf("good readings counted %v times (want 4), %d records shipped upstream (want 1), %v messages in flight, %v commit errors",
			byKey["good"], len(cloud.late(t)), poisonMetric(t, e, "edged_inflight_messages"), poisonMetric(t, e, "edged_commit_errors_total"))
	})
	if l := cloud.late(t)[0]; l.Reason != "undecodable" || !strings.Contains(string(l.Payload), long) {
		t.Errorf("shipped upstream: reason %q, payload of %d bytes; want the long key's reading as undecodable", l.Reason, len(l.Payload))
	}
	for _, m := range []struct {
		name, label string
		want        float64
	}{
		{"edged_late_total", `reason="undecodable"`, 1},
		{"edged_long_topics_dropped_total", "", 1},
		{"edged_commit_errors_total", "", 0},
	} {
		if got := poisonMetric(t, e, m.name, m.label); got != m.want {
			t.Errorf("%s{%s} = %v, want %v", m.name, m.label, got, m.want)
		}
	}
}
