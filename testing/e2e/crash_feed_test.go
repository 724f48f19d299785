package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// The crash suite's device: per-sensor windows of crashWindowMS, fed by one
// topic per sensor, late records published locally so the test can collect them.
const (
	crashDevice    = "crash"
	crashWindowMS  = 2000
	crashLateness  = 1000
	crashBoundMS   = 200
	crashBaseTS    = 1_733_140_000_000
	crashStepMS    = 2 // mean event-time advance per reading, all sensors together
	crashDisorder  = 300
	crashLateFrac  = 0.02
	crashLateBy    = 3000
	crashMaxPubAck = 1000 // publishes awaiting PUBACK at once
	// crashRate paces the publisher (readings per second) so the kills land while
	// readings are still arriving, not only after all of them are queued.
	crashRate  = 10_000
	crashBurst = 100 // readings per pacing tick
)

var crashAggregates = []string{"count", "sum(v)", "min(v)", "max(v)", "avg(v)"}

// crashSetup is one test's broker, topics and config files.
type crashSetup struct {
	broker  string
	prefix  string // topic prefix, unique per test
	dataDir string
	config  string // daemon file
}

// crashConfig writes a daemon file and the device file for the broker at url.
func crashConfig(t testing.TB, url, prefix string) crashSetup {
	t.Helper()
	return crashConfigIn(t, url, prefix, "", "")
}

// crashConfigIn is crashConfig with the state in dataDir ("": a temp dir) and more
// lines (YAML) appended to the daemon file.
func crashConfigIn(t testing.TB, url, prefix, dataDir, more string) crashSetup {
	t.Helper()
	dir := t.TempDir()
	if dataDir == "" {
		dataDir = filepath.Join(dir, "data")
	}
	s := crashSetup{broker: url, prefix: prefix, dataDir: dataDir, config: filepath.Join(dir, "edged.yaml")}
	s.write(t, dir, more, crashLayout{topic: "+/data", key: "{topic_segment: 1}", interval: "20ms"})
	return s
}

// crashLayout is where the crash suite's device finds its key and how often its
// watermark is emitted.
type crashLayout struct {
	topic    string // after the prefix
	key      string // the stream's key spec
	interval string // watermark interval
}

// write writes the daemon file, with more lines (YAML) appended, and the device file.
func (s crashSetup) write(t testing.TB, dir, more string, l crashLayout) {
	t.Helper()
	crashWriteFile(t, s.config, fmt.Sprintf(`
data_dir: %s
durability: process
commit_interval: 20ms
devices_dir: devices
log: {level: info}
http: {listen: "127.0.0.1:0"}
broker: {url: %q, client_id: %s-edged}
%s
`, s.dataDir, s.broker, s.prefix, more))
	crashWriteFile(t, filepath.Join(dir, "devices", "crash.yaml"), fmt.Sprintf(`
device: %s
streams:
  - name: s
    topic: %s/%s
    qos: 1
    timestamp: {field: ts, unit: ms}
    key: %s
    watermark: {strategy: bounded, max_out_of_orderness: %dms, interval: %s, idle_timeout: 1s, idle_mode: advance, max_future_skew: 0s}
windows:
  - name: w
    stream: s
    type: tumbling
    size: %dms
    allowed_lateness: %dms
    aggregates: [%s]
    output: {topic: "%s/out/{key}", qos: 1}
    late: "topic:%s/late"
`, crashDevice, s.prefix, l.topic, l.key, crashBoundMS, l.interval, crashWindowMS, crashLateness, joinComma(crashAggregates), s.prefix, s.prefix))
}

func joinComma(ss []string) string {
	b, _ := json.Marshal(ss)
	return string(b[1 : len(b)-1])
}

// crashEvents generates n readings from 200 sensors in arrival order, with
// disorder and some records later than the watermark bound and the lateness.
func crashEvents(seed uint64, n int) []oracle.Event {
	return oracle.Generate(oracle.Config{
		Seed: seed, Keys: 200, Events: n, Start: crashBaseTS, Step: crashStepMS,
		Disorder: crashDisorder, LateFraction: crashLateFrac, LateBy: crashLateBy,
		Fields: []oracle.Field{{Kind: windows.Number, Min: -50, Max: 50}},
	})
}

// crashPayload is reading seq: its sequence number makes every payload unique and
// lets a late record be traced back to it.
func crashPayload(e oracle.Event, seq int) []byte {
	return fmt.Appendf(nil, `{"ts":%d,"v":%s,"seq":%d}`, e.TS, strconv.FormatFloat(e.Values[0].Num, 'g', -1, 64), seq)
}

// crashPublish publishes events[from:to] with QoS 1 at crashRate and waits for
// every PUBACK; acked counts them as they come.
func crashPublish(t testing.TB, s crashSetup, events []oracle.Event, from, to int, acked *atomic.Int64) error {
	return s.publish(events, from, to, publishing{
		topic:   func(e oracle.Event) string { return fmt.Sprintf("%s/%s/data", s.prefix, e.Key) },
		payload: crashPayload, paced: true, acked: acked,
	})
}

// publishing is how crashSetup.publish sends each event.
type publishing struct {
	topic   func(oracle.Event) string
	payload func(e oracle.Event, seq int) []byte
	paced   bool          // crashBurst messages at a time, at crashRate
	acked   *atomic.Int64 // counts confirmed publishes when not nil
}

// publish sends events[from:to] with QoS 1, at most crashMaxPubAck unconfirmed, and
// waits until the broker confirmed them all.
func (s crashSetup) publish(events []oracle.Event, from, to int, how publishing) error {
	cl, err := mqtt.Connect(context.Background(), mqtt.Options{
		URL: s.broker, ClientID: fmt.Sprintf("%s-pub-%d", s.prefix, from), CleanSession: true,
	})
	if err != nil {
		return fmt.Errorf("publisher: %w", err)
	}
	defer cl.Close(time.Second)
	slots := make(chan struct{}, crashMaxPubAck)
	var wg sync.WaitGroup
	var firstErr atomic.Pointer[error]
	pace := time.NewTicker(time.Second * crashBurst / crashRate)
	defer pace.Stop()
	for i := from; i < to; i++ {
		if how.paced && (i-from)%crashBurst == 0 && i > from {
			<-pace.C
		}
		slots <- struct{}{}
		wg.Add(1)
		e := events[i]
		cl.Publish(how.topic(e), 1, how.payload(e, i), func(err error) {
			switch {
			case err != nil:
				firstErr.CompareAndSwap(nil, &err)
			case how.acked != nil:
				how.acked.Add(1)
			}
			<-slots
			wg.Done()
		})
	}
	wg.Wait()
	if p := firstErr.Load(); p != nil {
		return fmt.Errorf("publisher: %w", *p)
	}
	return nil
}

// crashCollector keeps every result and late record edged publishes. It
// subscribes before edged starts with a persistent session, so it misses nothing
// even across a broker restart.
type crashCollector struct {
	mu      sync.Mutex
	results []harness.Result
	late    map[int]bool // reading seqs edged reported late
	bad     []string
}

func crashCollect(t testing.TB, s crashSetup) *crashCollector {
	t.Helper()
	c := &crashCollector{late: map[int]bool{}}
	connect(t, "collector", mqtt.Options{
		URL: s.broker, ClientID: s.prefix + "-collector", CleanSession: false,
		Subscriptions: []mqtt.Subscription{{Filter: s.prefix + "/out/#", QoS: 1}, {Filter: s.prefix + "/late", QoS: 1}},
		Handler:       c.handle(s.prefix + "/late"),
	})
	return c
}

func (c *crashCollector) handle(lateTopic string) func(*mqtt.Message) {
	return func(m *mqtt.Message) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if m.Topic == lateTopic {
			var l struct {
				Payload struct {
					Seq *int `json:"seq"`
				} `json:"payload"`
			}
			if err := json.Unmarshal(m.Payload, &l); err != nil || l.Payload.Seq == nil {
				c.bad = append(c.bad, string(m.Payload))
				return
			}
			c.late[*l.Payload.Seq] = true
			return
		}
		r, err := harness.ParseResult(m.Payload)
		if err != nil {
			c.bad = append(c.bad, string(m.Payload))
			return
		}
		c.results = append(c.results, r)
	}
}

// snapshot copies what arrived so far.
func (c *crashCollector) snapshot() (results []harness.Result, late map[int]bool, bad []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	late = make(map[int]bool, len(c.late))
	for k := range c.late {
		late[k] = true
	}
	return append([]harness.Result(nil), c.results...), late, append([]string(nil), c.bad...)
}
