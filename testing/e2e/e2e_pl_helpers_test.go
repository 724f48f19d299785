package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// Helpers of the pipeline, bad-input and reconnect suites; every name starts
// with pl because other suites share the package.

// plCollector keeps every message published on a filter, raw, in arrival order.
type plCollector struct {
	mu   sync.Mutex
	msgs []plMessage
}

type plMessage struct {
	Topic   string
	Payload []byte
}

// plCollect subscribes to filter (QoS 1) until the test ends. A persistent
// collector keeps its session at the broker, so a broker restart loses
// nothing published to it.
func plCollect(t testing.TB, url, filter string, persistent bool) *plCollector {
	t.Helper()
	c := &plCollector{}
	connect(t, "collector on "+filter, mqtt.Options{
		URL: url, ClientID: fmt.Sprintf("pl-collector-%d", time.Now().UnixNano()), CleanSession: !persistent,
		Subscriptions: []mqtt.Subscription{{Filter: filter, QoS: 1}},
		Handler: func(m *mqtt.Message) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.msgs = append(c.msgs, plMessage{Topic: m.Topic, Payload: append([]byte(nil), m.Payload...)})
		},
	})
	return c
}

// results decodes every message as a result record; the test fails on one
// that is not.
func (c *plCollector) results(t testing.TB) []harness.Result {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]harness.Result, 0, len(c.msgs))
	for _, m := range c.msgs {
		r, err := harness.ParseResult(m.Payload)
		if err != nil {
			t.Fatalf("on %s: %v", m.Topic, err)
		}
		out = append(out, r)
	}
	return out
}

// plLate is a late record as edged publishes it to a `late: topic:` destination.
type plLate struct {
	Device     string          `json:"device"`
	Stream     string          `json:"stream"`
	Window     string          `json:"window"`
	Key        string          `json:"key"`
	Reason     string          `json:"reason"`
	TS         int64           `json:"ts"`
	Watermark  *int64          `json:"watermark"`
	LatenessMS int64           `json:"lateness_ms"`
	Missed     []plSpan        `json:"missed"`
	ReceivedAt int64           `json:"received_at"`
	Payload    json.RawMessage `json:"payload"`
}

type plSpan struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// late decodes every message as a late record.
func (c *plCollector) late(t testing.TB) []plLate {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]plLate, 0, len(c.msgs))
	for _, m := range c.msgs {
		var l plLate
		if err := json.Unmarshal(m.Payload, &l); err != nil {
			t.Fatalf("late record on %s: %v: %s", m.Topic, err, m.Payload)
		}
		out = append(out, l)
	}
	return out
}

// plReading is what the suites publish: an oracle event of one sensor, with a
// sequence number that makes every payload unique (edged identifies messages
// by content) and lets a late record be traced back to its reading.
type plReading struct {
	Sensor string
	N      int
	Event  oracle.Event // Key is the sensor; Values[0] is temp
}

func (r plReading) payload() []byte {
	return fmt.Appendf(nil, `{"ts":%d,"temp":%v,"site":"plant","n":%d}`, r.Event.TS, r.Event.Values[0].Num, r.N)
}

// plPayloadN reads the sequence number back from a payload edged forwarded.
func plPayloadN(t testing.TB, payload []byte) int {
	t.Helper()
	var p struct {
		N *int `json:"n"`
	}
	if err := json.Unmarshal(payload, &p); err != nil || p.N == nil {
		t.Fatalf("payload %s carries no sequence number: %v", payload, err)
	}
	return *p.N
}

// plTemp is the one value field of the suites' readings: quarter steps, so
// sums are exact whatever the order of addition.
var plTemp = []oracle.Field{{Kind: windows.Number, Min: -10, Max: 40}}

// plPublisher publishes QoS 1 messages and can wait for their PUBACKs.
type plPublisher struct {
	t       testing.TB
	c       *mqtt.Client
	pending sync.WaitGroup
	mu      sync.Mutex
	err     error
}

func plPublish(t testing.TB, url string) *plPublisher {
	t.Helper()
	c := connect(t, "publisher", mqtt.Options{URL: url, ClientID: fmt.Sprintf("pl-pub-%d", time.Now().UnixNano()), CleanSession: true})
	return &plPublisher{t: t, c: c}
}

func (p *plPublisher) send(topic string, payload []byte) {
	p.pending.Add(1)
	p.c.Publish(topic, 1, payload, func(err error) {
		defer p.pending.Done()
		if err != nil {
			p.mu.Lock()
			p.err = err
			p.mu.Unlock()
		}
	})
}

// flush waits until the broker acknowledged everything sent so far.
func (p *plPublisher) flush() {
	p.t.Helper()
	done := make(chan struct{})
	go func() { p.pending.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.t.Fatal("the broker did not acknowledge the published readings within 10s")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		p.t.Fatalf("publishing: %v", p.err)
	}
}

// plMetric sums the samples of a counter or gauge family whose labels include
// every pair in match.
func plMetric(t testing.TB, e *harness.Edged, name string, match map[string]string) float64 {
	t.Helper()
	families, err := e.Metrics().Registry.Gather()
	if err != nil {
		t.Fatalf("gathering metrics: %v", err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	samples:
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range match {
				if labels[k] != v {
					continue samples
				}
			}
			switch {
			case m.GetCounter() != nil:
				sum += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				sum += m.GetGauge().GetValue()
			}
		}
	}
	return sum
}

// plHealth is the status code of GET /healthz, or 0 if the request failed.
func plHealth(addr string) int {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get("http://" + addr + "/healthz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// plCheckAgainstOracle compares, window by window, what an upserting store
// holds at the end (the latest revision of each result of device/window)
// with the oracle's recomputation from accepted, keyed as the results are.
// It returns how many records the results count.
func plCheckAgainstOracle(t testing.TB, rs []harness.Result, device, window string, size int64, aggs *windows.Aggregates, accepted []oracle.Event) int {
	t.Helper()
	want := oracle.Compute(windows.Tumbling(size, 0), aggs, accepted)
	for _, r := range rs {
		if r.Device != device || r.Window != window {
			continue
		}
		if wantKind := map[bool]string{true: "on_time", false: "late_update"}[r.Revision == 0]; r.Kind != wantKind {
			t.Errorf("%s/%s: result %+v of revision %d is of kind %q, want %q", device, window, r, r.Revision, r.Kind, wantKind)
		}
		if r.Watermark < r.End-1 {
			t.Errorf("%s/%s: result %+v fired at watermark %d, before its window's end", device, window, r, r.Watermark)
		}
	}
	got := map[windows.Ref]harness.Result{}
	for id, r := range harness.Latest(rs) {
		if id.Device == device && id.Window == window {
			got[windows.Ref{Key: r.Key, Window: windows.Window{Start: r.Start, End: r.End}}] = r
		}
	}
	counted := 0
	for ref, r := range got {
		w, ok := want[ref]
		if !ok {
			t.Errorf("%s/%s: result for %+v, which holds no accepted reading: %+v", device, window, ref, r)
			continue
		}
		values := make([]windows.NamedValue, 0, len(aggs.Names()))
		for _, name := range aggs.Names() {
			v := math.NaN() // null: the aggregate saw no value
			if p := r.Values[name]; p != nil {
				v = *p
			}
			values = append(values, windows.NamedValue{Name: name, Value: v})
		}
		if err := oracle.Equal(values, w, aggs); err != nil {
			t.Errorf("%s/%s %+v revision %d: %v", device, window, ref, r.Revision, err)
		}
		if c := r.Values["count"]; c != nil {
			counted += int(*c)
		}
	}
	for ref := range want {
		if _, ok := got[ref]; !ok {
			t.Errorf("%s/%s: no result for %+v, which holds accepted readings (oracle: %v)", device, window, ref, want[ref])
		}
	}
	return counted
}

// plCount is the sum of the count aggregate over the latest result of every
// window of device/window.
func plCount(rs []harness.Result, device, window string) int {
	n := 0
	for id, r := range harness.Latest(rs) {
		if id.Device == device && id.Window == window && r.Values["count"] != nil {
			n += int(*r.Values["count"])
		}
	}
	return n
}
