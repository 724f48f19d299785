package e2e

import (
	"bufio"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/harness"
)

// The upstream suite's devices: per-key tumbling windows of upWindowMS fed by one
// topic per key (so each key has its own watermark), too-late records shipped
// upstream (the default `late: upstream`).
const (
	upBaseTS     = 1_733_140_000_000
	upWindowMS   = 1000
	upLatenessMS = 200
	upBoundMS    = 100
	// upOnTimeMS is how far the on-time feed takes event time: the watermark ends
	// near upBaseTS+upOnTimeMS, so windows before upBaseTS+upOnTimeMS-upWindowMS
	// are fired and purged, and readings for them are too late.
	upOnTimeMS = 5000
	// upLateSpanMS: too-late readings fall in the first two windows, long purged.
	upLateSpanMS = 2 * upWindowMS
)

// upSetup is one test's brokers, topics and config file.
type upSetup struct {
	prefix string // unique per test: topics, client ids, the upstream topic prefix
	local  string // URL of the broker the sensors publish to
	config string // the daemon file
}

// upUplink is the daemon file's upstream section, as the test varies it.
type upUplink struct {
	url        string
	maxRecords int
	maxRate    int
	maxBytes   int64
	whenFull   string
	extra      string // more lines of the upstream section, indented by two spaces
}

// upConfig writes a daemon file and one device file per device. Streams take
// QoS qos; limits.max_inflight is raised so a burst of QoS 0 readings is not shed
// for a full pipeline (only for a blocked outbox).
func upConfig(t testing.TB, local, prefix string, qos int, up upUplink, devices ...string) upSetup {
	t.Helper()
	files := map[string]string{}
	for _, d := range devices {
		files[d+".yaml"] = fmt.Sprintf(`
device: %[1]s
streams:
  - name: s
    topic: %[2]s/%[1]s/+/data
    qos: %[3]d
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 2}
    watermark: {strategy: bounded, max_out_of_orderness: %[4]dms, interval: 20ms}
windows:
  - name: w
    stream: s
    type: tumbling
    size: %[5]dms
    allowed_lateness: %[6]dms
    aggregates: [count, sum(v)]
    output: {topic: "%[2]s/out/%[1]s/{key}", qos: 1}
`, d, prefix, qos, upBoundMS, upWindowMS, upLatenessMS)
	}
	path := harness.WriteConfig(t, fmt.Sprintf(`
data_dir: data
durability: process
commit_interval: 20ms
log: {level: info}
http: {listen: "127.0.0.1:0"}
limits: {max_inflight: 1000000}
broker: {url: %q, client_id: %s-edged}
upstream:
  url: %q
  client_id: %s-uplink
  topic_prefix: %s/cloud
  batch: {max_records: %d, max_delay: 10ms}
  max_rate: %d
  outbox: {max_bytes: %d, when_full: %s}
%s`, local, prefix, up.url, prefix, prefix, up.maxRecords, up.maxRate, up.maxBytes, up.whenFull, up.extra), files)
	return upSetup{prefix: prefix, local: local, config: path}
}

// upPrefix is a topic prefix no other test uses.
func upPrefix(name string) string { return fmt.Sprintf("up%s%d", name, time.Now().UnixNano()) }

// upTopic is the topic of one key of one device.
func (s upSetup) upTopic(device, key string) string {
	return fmt.Sprintf("%s/%s/%s/data", s.prefix, device, key)
}

// upReading is a reading's payload; n identifies it in the late record that
// carries it upstream.
func upReading(ts int64, n int) []byte {
	return fmt.Appendf(nil, `{"ts":%d,"v":1,"n":%d}`, ts, n)
}

// upPublisher publishes readings, at most upMaxUnacked QoS 1 messages awaiting
// their PUBACK at once (paho has 65535 message ids).
type upPublisher struct {
	t       testing.TB
	c       *mqtt.Client
	slots   chan struct{}
	pending sync.WaitGroup
	mu      sync.Mutex
	err     error
}

const upMaxUnacked = 2000

// upQuiet keeps the test clients' connection logs out of the test output.
var upQuiet = slog.New(slog.DiscardHandler)

func upPublish(t testing.TB, url, id string) *upPublisher {
	t.Helper()
	c := connect(t, "publisher", mqtt.Options{URL: url, ClientID: id, CleanSession: true, Logger: upQuiet})
	return &upPublisher{t: t, c: c, slots: make(chan struct{}, upMaxUnacked)}
}

func (p *upPublisher) send(topic string, qos byte, payload []byte) {
	p.slots <- struct{}{}
	p.pending.Add(1)
	p.c.Publish(topic, qos, payload, func(err error) {
		defer p.pending.Done()
		<-p.slots
		if err != nil {
			p.mu.Lock()
			p.err = err
			p.mu.Unlock()
		}
	})
}

// flush waits until the broker has taken everything sent so far.
func (p *upPublisher) flush() {
	p.t.Helper()
	done := make(chan struct{})
	go func() { p.pending.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		p.t.Fatal("the broker did not acknowledge the published readings within 20s")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		p.t.Fatalf("publishing: %v", p.err)
	}
}

// upOnTime publishes, for every key of every device, one reading every
// upWindowMS/10 from upBaseTS to upBaseTS+upOnTimeMS, and returns how many
// windows that fires (all but the last of each key).
func (s upSetup) upOnTime(p *upPublisher, qos byte, devices, keys []string) int {
	p.t.Helper()
	for _, d := range devices {
		for _, k := range keys {
			for ts := int64(upBaseTS); ts <= upBaseTS+upOnTimeMS; ts += upWindowMS / 10 {
				p.send(s.upTopic(d, k), qos, upReading(ts, -1))
			}
		}
	}
	p.flush()
	return len(devices) * len(keys) * (upOnTimeMS/upWindowMS - 1)
}

// upLateTS is the event time of too-late reading n: inside the first windows,
// which the on-time feed fired and purged.
func upLateTS(n int) int64 { return upBaseTS + int64(n*37%upLateSpanMS) }

// upMetric scrapes the daemon at addr and sums the samples of metric name whose
// labels include every pair of match.
func upMetric(t testing.TB, addr, name string, match map[string]string) float64 {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scraping edged: %v", err)
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
samples:
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest == "" || rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		labels, _, _ := strings.Cut(rest, "}")
		for k, v := range match {
			if !strings.Contains(labels, k+"="+strconv.Quote(v)) {
				continue samples
			}
		}
		f, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err == nil {
			sum += f
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading edged's metrics: %v", err)
	}
	return sum
}

// upRSS is the resident set size of process pid in bytes, from /proc.
func upRSS(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the memory of edged: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("parsing %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// upEventually polls cond until it holds or timeout passes, then fails the test
// with what(), which can tell how far it got.
func upEventually(t testing.TB, timeout time.Duration, cond func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what())
		}
		time.Sleep(5 * time.Millisecond) // a poll interval, not a wait for an event
	}
}
