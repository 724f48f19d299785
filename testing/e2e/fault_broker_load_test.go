package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/longtest"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// The broker-under-load suite kills the local broker (kill -9) while edged's intake
// is held back, as it is whenever limits.max_inflight messages wait for a commit:
// paho's reader then stops reading the connection, and a broker that goes is seen
// only through a failed write (an acknowledgement) or edged's hold watch
// (mqtt/holdwatch.go). Each time edged must notice within loadNoticed and be back
// within loadReconnect of the restart, and in the end every window must be exact.
//
//	go test ./testing/e2e -run BrokerKilledUnderLoad -v
const (
	loadSensors   = 500
	loadRate      = 2000 // readings per second into the broker
	loadBurst     = 100  // readings per pacing tick
	loadPerCycle  = 2 * loadRate
	loadKills     = 10
	loadOutage    = 3 * time.Second // from the kill to the restart
	loadNoticed   = 2 * time.Second // from the kill to edged's broker_connected 0
	loadReconnect = 5 * time.Second // from the restart to edged subscribed again
	// loadInflight holds intake back: at most this many readings between arrival
	// and commit, committed every loadCommit (not sooner for a result), so edged
	// takes at most 1,500 readings a second while the feed brings 2,000, and the
	// broker holds a backlog for it at every kill, which edged works off after
	// the reconnect.
	loadInflight = 150
	loadCommit   = 100 * time.Millisecond
	loadBoundMS  = 200
)

// loadWindow is one of the device's three window definitions.
type loadWindow struct {
	name, kind string
	assigner   windows.Assigner
	aggregates []string
	spec       string // the YAML after the window's type
}

// Windows long against the feed's 40 s of event time, as real ones (minutes) are
// against a broker restart: edged publishes results in bursts as windows end, and
// between them nothing of its own reveals a dead connection.
var loadWindows = []loadWindow{
	{"tum", "tumbling", windows.Tumbling(20_000, 0), []string{"count", "sum(v)", "min(v)", "max(v)"}, "size: 20s"},
	{"sli", "sliding", windows.Sliding(20_000, 10_000, 0), []string{"count", "avg(v)"}, "size: 20s\n    slide: 10s"},
	{"ses", "session", windows.Session(5_000), []string{"count", "sum(v)", "max(v)"}, "gap: 5s"},
}

// It kills the broker ten times under a 2,000 msg/s feed (about 70 s). It does not
// run in parallel: its deadlines (loadNoticed, loadReconnect) are timings, which
// the other suites' load would stretch; the parallel tests wait until it is done.
func TestLongBrokerKilledUnderLoadTenTimesIsSeenEachTimeAndLosesNothing(t *testing.T) {
	longtest.Skip(t)
	const seed = 32
	t.Logf("seed %d", seed)
	began := time.Now()
	bin := crashBuild(t)
	mq := broker.Start(t)
	prefix := fmt.Sprintf("load-%d", time.Now().UnixNano())
	config := loadConfig(t, mq.URL(), prefix)
	coll := loadCollect(t, mq.URL(), prefix)
	e := crashStart(t, bin, config)
	events := oracle.Generate(oracle.Config{
		Seed: seed, Keys: loadSensors, Events: loadKills * loadPerCycle, Start: crashBaseTS, Step: 1, Disorder: loadBoundMS / 2,
		Fields: []oracle.Field{{Kind: windows.Number, Min: -50, Max: 50}},
	})
	topic := func(ev oracle.Event) string { return fmt.Sprintf("%s/%s/data", prefix, ev.Key) }
	for k := range loadKills {
		loadFeed(loadSensorsUp(t, mq.URL(), fmt.Sprintf("%s-sensors-%d", prefix, k)), events, k*loadPerCycle, (k+1)*loadPerCycle, topic)
		// Mosquitto loses what it took since its last save: make it save what it
		// confirmed, so the kill loses nothing edged has not taken yet. edged is
		// still working through the broker's backlog.
		mq.Save()
		inflight := e.metric("edged_inflight_messages")
		mq.Kill()
		killed := time.Now()
		harness.Eventually(t, loadNoticed, fmt.Sprintf("edged noticing kill %d (edged_broker_connected 0)", k+1), func() bool {
			return e.metric("edged_broker_connected") == 0
		})
		noticed := time.Since(killed)
		time.Sleep(time.Until(killed.Add(loadOutage))) // the outage itself, not a wait for an event
		mq.Restart()
		restarted := time.Now()
		harness.Eventually(t, loadReconnect, fmt.Sprintf("edged subscribed again after restart %d (edged_broker_connected 1)", k+1), func() bool {
			return e.metric("edged_broker_connected") == 1
		})
		t.Logf("at %s kill %d: %d readings in edged's pipeline; noticed after %s, subscribed again %s after the restart",
			time.Since(began).Round(time.Second), k+1, int(inflight), noticed.Round(time.Millisecond), time.Since(restarted).Round(time.Millisecond))
	}

	// One reading per sensor far ahead fires every window of the feed.
	last := slices.MaxFunc(events, func(a, b oracle.Event) int { return int(a.TS - b.TS) }).TS
	pub := loadSensorsUp(t, mq.URL(), prefix+"-sensors-last")
	for i := range loadSensors {
		ev := oracle.Event{Key: fmt.Sprintf("k%d", i), TS: last + 60_000, Values: []windows.Value{windows.NumberValue(0)}}
		pub.send(topic(ev), 1, crashPayload(ev, len(events)+i))
	}
	pub.flush()
	problems := loadAwait(t, coll, events)
	results, late := coll.snapshot()
	t.Logf("%d results, %d late records, %v redelivered duplicates skipped; losses seen by edged's hold watch %d, by a failed write %d; %s in all",
		len(results), len(late), e.metric("edged_duplicates_skipped_total"),
		e.logs.count("the broker closed the connection"), e.logs.count("writing to the broker"), time.Since(began).Round(time.Second))
	if len(problems) > 0 {
		shown := problems[:min(len(problems), 25)]
		t.Errorf("%d problems; first %d:\n%s", len(problems), len(shown), strings.Join(shown, "\n"))
	}
}

// loadConfig writes the daemon file and the device file: one QoS 1 stream keyed
// by sensor, never idle (only readings move a watermark, so none is late for an
// outage), and the three windows, results and late records published locally.
func loadConfig(t testing.TB, url, prefix string) string {
	t.Helper()
	dir := t.TempDir()
	config := filepath.Join(dir, "edged.yaml")
	crashWriteFile(t, config, fmt.Sprintf(`
data_dir: %s
durability: process
commit_interval: %s
commit_on_result: false
devices_dir: devices
log: {level: info}
http: {listen: "127.0.0.1:0"}
limits: {max_inflight: %d}
broker: {url: %q, client_id: %s-edged}
`, filepath.Join(dir, "data"), loadCommit, loadInflight, url, prefix))
	var b strings.Builder
	fmt.Fprintf(&b, `
device: %[1]s
streams:
  - name: s
    topic: %[2]s/+/data
    qos: 1
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: %[3]dms, interval: 20ms, idle_timeout: 0s}
windows:
`, crashDevice, prefix, loadBoundMS)
	for _, w := range loadWindows {
		fmt.Fprintf(&b, `  - name: %[1]s
    stream: s
    type: %[2]s
    %[3]s
    aggregates: [%[4]s]
    output: {topic: "%[5]s/out/%[1]s/{key}", qos: 1}
    late: "topic:%[5]s/late"
`, w.name, w.kind, w.spec, joinComma(w.aggregates), prefix)
	}
	crashWriteFile(t, filepath.Join(dir, "devices", "load.yaml"), b.String())
	return config
}

// loadSensorsUp connects the sensors' publisher anew. One that reconnected by
// itself may send a reading twice: paho resends what its store holds once the
// connection is up, and a reading published in that instant is stored and sent
// anyway; the broker forwards both copies, and only a redelivery it flags is
// recognised as one.
func loadSensorsUp(t testing.TB, url, id string) *upPublisher {
	t.Helper()
	return &upPublisher{t: t, slots: make(chan struct{}, upMaxUnacked), c: connect(t, "sensors", mqtt.Options{
		URL: url, ClientID: id, CleanSession: true, Logger: upQuiet,
	})}
}

// loadFeed publishes events[from:to] at loadRate, waits until the broker confirmed
// them all and disconnects.
func loadFeed(p *upPublisher, events []oracle.Event, from, to int, topic func(oracle.Event) string) {
	defer p.c.Close(time.Second)
	pace := time.NewTicker(time.Second * loadBurst / loadRate)
	defer pace.Stop()
	for i := from; i < to; i++ {
		if i > from && (i-from)%loadBurst == 0 {
			<-pace.C
		}
		p.send(topic(events[i]), 1, crashPayload(events[i], i))
	}
	p.flush()
}

// loadCollector keeps every result and, per window, the readings reported late.
type loadCollector struct {
	mu      sync.Mutex
	results []harness.Result
	late    map[string]map[int]bool // window -> reading seqs
	bad     []string
}

// loadCollect subscribes with a persistent session before edged starts, so it
// misses nothing across the broker's restarts.
func loadCollect(t testing.TB, url, prefix string) *loadCollector {
	t.Helper()
	c := &loadCollector{late: map[string]map[int]bool{}}
	connect(t, "collector", mqtt.Options{
		URL: url, ClientID: prefix + "-collector", CleanSession: false, Logger: upQuiet, MaxReconnectInterval: time.Second,
		Subscriptions: []mqtt.Subscription{{Filter: prefix + "/out/#", QoS: 1}, {Filter: prefix + "/late", QoS: 1}},
		Handler: func(m *mqtt.Message) {
			c.mu.Lock()
			defer c.mu.Unlock()
			if m.Topic == prefix+"/late" {
				var l struct {
					Window  string `json:"window"`
					Payload struct {
						Seq *int `json:"seq"`
					} `json:"payload"`
				}
				if err := json.Unmarshal(m.Payload, &l); err != nil || l.Payload.Seq == nil {
					c.bad = append(c.bad, string(m.Payload))
					return
				}
				if c.late[l.Window] == nil {
					c.late[l.Window] = map[int]bool{}
				}
				c.late[l.Window][*l.Payload.Seq] = true
				return
			}
			r, err := harness.ParseResult(m.Payload)
			if err != nil {
				c.bad = append(c.bad, string(m.Payload))
				return
			}
			c.results = append(c.results, r)
		},
	})
	return c
}

func (c *loadCollector) snapshot() ([]harness.Result, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var late []string
	for w, seqs := range c.late {
		for seq := range seqs {
			late = append(late, fmt.Sprintf("%s/%d", w, seq))
		}
	}
	return slices.Clone(c.results), late
}

// loadAwait polls until every window of every definition matches the oracle, or
// crashFinalTimeout passes, and returns the last problems found.
func loadAwait(t testing.TB, c *loadCollector, events []oracle.Event) []string {
	t.Helper()
	deadline := time.Now().Add(crashFinalTimeout)
	for {
		problems := c.check(t, events)
		if len(problems) == 0 || time.Now().After(deadline) {
			return problems
		}
		time.Sleep(250 * time.Millisecond) // the poll interval of a wait bounded by deadline
	}
}

// check recomputes each definition's windows from the readings not reported late
// for it and compares the latest revision edged published for each, and reports a
// window missing, extra or different, and a revision published with two values.
func (c *loadCollector) check(t testing.TB, events []oracle.Event) []string {
	t.Helper()
	c.mu.Lock()
	results := slices.Clone(c.results)
	late := map[string]map[int]bool{}
	for w, seqs := range c.late {
		late[w] = maps.Clone(seqs)
	}
	bad := slices.Clone(c.bad)
	c.mu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("%d malformed messages on the output topics, first: %s", len(bad), bad[0])
	}
	var problems []string
	type revision struct {
		id  harness.ID
		rev int
	}
	seen := map[revision]harness.Result{}
	for _, r := range results {
		k := revision{r.ID(), r.Revision}
		if prev, ok := seen[k]; ok && !sameValues(prev, r) {
			problems = append(problems, fmt.Sprintf("window %v revision %d published with two values", k.id, k.rev))
		}
		seen[k] = r
	}
	latest := harness.Latest(results)
	for _, w := range loadWindows {
		aggs, err := windows.ParseAggregates(w.aggregates)
		if err != nil {
			t.Fatal(err)
		}
		var accepted []oracle.Event
		for i, ev := range events {
			if !late[w.name][i] {
				accepted = append(accepted, ev)
			}
		}
		for ref, vals := range oracle.Compute(w.assigner, aggs, accepted) {
			id := harness.ID{Device: crashDevice, Window: w.name, Key: ref.Key, Start: ref.Window.Start}
			got, ok := latest[id]
			if !ok {
				problems = append(problems, fmt.Sprintf("window %v missing (want %v)", id, vals))
				continue
			}
			delete(latest, id)
			if err := oracle.Equal(namedValues(got, aggs), vals, aggs); err != nil {
				problems = append(problems, fmt.Sprintf("window %v revision %d: %v", id, got.Revision, strings.ReplaceAll(err.Error(), "\n", "; ")))
			}
		}
	}
	for id := range latest {
		problems = append(problems, fmt.Sprintf("window %v published but no accepted reading falls in it", id))
	}
	slices.Sort(problems)
	return problems
}
