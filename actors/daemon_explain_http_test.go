package actors

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/explain"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/windows"
)

// explainDevice keys readings by a field, so one key is fed by several topics and
// a passivated key keeps its saved valve.
const explainDevice = `
device: d
streams:
  - name: s
    topic: t/+
    timestamp: {field: ts, unit: ms}
    key: {field: k}
    watermark: {strategy: bounded, max_out_of_orderness: 0s, interval: 10ms, idle_timeout: 1m}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 1s
    allowed_lateness: 2s
    aggregates: [count]
`

// explainFixture runs explainDevice on the synchronized dispatcher: key a is fed
// by t/2 up to t0+2.5 s and by t/1 up to t0+4.1 s, so t/2 holds it back and its
// window [t0+2 s, t0+3 s) waits; it had one reading too late for every window.
// Key p had one reading on t/1, whose window fired and was purged, and it was
// passivated. send publishes more at processing time at and commits.
func explainFixture(t *testing.T) (d *Daemon, send func(at int64, topic, payload string)) {
	t.Helper()
	topo, _, _ := newTestTopology(t, explainDevice)
	m := topo.env.metrics
	var now int64
	d = &Daemon{topo: topo, metrics: m, store: topo.env.store, status: sampler(m, 0), clock: func() int64 { return now }}
	d.status.SetWindows(d.windowSummaries)
	send = func(at int64, topic, payload string) {
		now = at
		topo.router.route(&Inbound{Topic: topic, Payload: []byte(payload), QoS: 1, At: at}, nil)
		topo.tick(at + 10)
		for _, done := range topo.flushAll() {
			<-done
		}
	}
	send(1, "t/1", `{"k":"p","ts":1733140000100}`)
	send(2, "t/2", `{"k":"a","ts":1733140002500}`)
	send(3, "t/1", `{"k":"a","ts":1733140004100}`)
	send(4, "t/1", `{"k":"a","ts":1733139990000}`) // too late
	for at := int64(100); at <= 3000; at += 100 {
		now = at
		topo.tick(at) // past p's passivate_after (the window's size)
		for _, done := range topo.flushAll() {
			<-done
		}
	}
	if n := counterSum(t, m, "edged_window_passivations_total"); n != 1 {
		t.Fatalf("%v keys passivated, want p alone", n)
	}
	return d, send
}

// get asks the daemon's /explain and decodes its JSON answer.
func get(t *testing.T, d *Daemon, query string, code int, into any) {
	t.Helper()
	rec := httptest.NewRecorder()
	d.serveExplain(rec, httptest.NewRequest(http.MethodGet, "/explain?"+query, nil))
	if rec.Code != code {
		t.Fatalf("/explain?%s: %d, want %d: %s", query, rec.Code, code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), into); err != nil {
		t.Fatalf("/explain?%s: %v: %s", query, err, rec.Body)
	}
}

func TestExplainALiveKeyNamesTheStreamHoldingItBackAndWhenItsWindowFires(t *testing.T) {
	d, send := explainFixture(t)
	var e explain.Explanation
	get(t, d, "device=d&window=w&key=a", http.StatusOK, &e)
	if e.State != explain.Live || e.HeldBackBy != "t/2" || e.Watermark != explain.Time(t0+2499) || len(e.Streams) != 2 {
		t.Fatalf("state %s, held back by %q, watermark %d, streams %+v", e.State, e.HeldBackBy, e.Watermark, e.Streams)
	}
	if len(e.Windows) != 2 {
		t.Fatalf("windows: %+v", e.Windows)
	}
	x := e.Windows[0]
	if x.Start != t0+2000 || x.State != explain.Pending || x.WaitsFor == nil || strings.Join(x.WaitsFor.Streams, ",") != "t/2" ||
		*x.WaitsFor.ReadingAtOrPast != t0+3000 || x.WaitsFor.AtCurrentRate == nil || x.WaitsFor.IfSilent == nil {
		t.Errorf("the pending window: %+v", x)
	}
	send(3100, "t/2", `{"k":"a","ts":1733140003500}`)
	get(t, d, "window=w&key=a", http.StatusOK, &e)
	if x := e.Windows[0]; x.State != explain.Fired || x.Results != 1 || *x.PurgedAt != t0+2999+2000 {
		t.Errorf("once t/2 passed its end: %+v", x)
	}
}

func TestExplainAKeyWithoutAWindowActor(t *testing.T) {
	d, _ := explainFixture(t)
	var e explain.Explanation
	get(t, d, "device=d&window=w&key=p", http.StatusOK, &e)
	if e.State != explain.Saved || len(e.Windows) != 0 || len(e.Streams) != 1 || !strings.Contains(e.Note, "passivated") {
		t.Errorf("a passivated key: %+v", e)
	}
	get(t, d, "device=d&window=w&key=nobody", http.StatusOK, &e)
	if e.State != explain.None || e.NoState == "" {
		t.Errorf("a key never seen: %+v", e)
	}
}

func TestExplainSaysWhatIsWrongWithAQuestion(t *testing.T) {
	d, _ := explainFixture(t)
	for _, c := range []struct {
		query, want string
		code        int
	}{
		{"device=d&window=w", "missing parameter key", http.StatusBadRequest},
		{"key=a", "missing parameter window", http.StatusBadRequest},
		{"device=x&window=w&key=a", `unknown device "x" (devices: d)`, http.StatusNotFound},
		{"device=d&window=nope&key=a", `unknown window "nope": device d has the windows w`, http.StatusNotFound},
		{"window=nope&key=a", `unknown window "nope": no device has it (windows: d/w)`, http.StatusNotFound},
		{"window=w&key=a&at=yesterday", `parameter at="yesterday"`, http.StatusBadRequest},
		{"stream=t/9", `unknown stream "t/9"`, http.StatusNotFound},
	} {
		var body struct{ Error string }
		get(t, d, c.query, c.code, &body)
		if !strings.Contains(body.Error, c.want) {
			t.Errorf("%s: error %q, want %q in it", c.query, body.Error, c.want)
		}
	}
}

func TestExplainAStreamListsTheKeysItFeeds(t *testing.T) {
	d, _ := explainFixture(t)
	var f streamFeeds
	get(t, d, "stream=t/2", http.StatusOK, &f)
	if f.Device != "d" || f.FeedsTotal != 1 || len(f.Feeds) != 1 || f.Feeds[0].Explain != "/explain?device=d&key=a&window=w" {
		t.Errorf("%+v", f)
	}
}

func TestExplainAnswersInTheWordsOfEdgedExplain(t *testing.T) {
	d, _ := explainFixture(t)
	rec := httptest.NewRecorder()
	d.serveExplain(rec, httptest.NewRequest(http.MethodGet, "/explain?window=w&key=a&format=text", nil))
	if out := rec.Body.String(); !strings.Contains(out, `window w of device d, key "a"`) || !strings.Contains(out, "t/2: watermark") ||
		!strings.Contains(out, "<- holds it back") {
		t.Errorf("%s", out)
	}
}

func TestKeysWithTheSameWindowsShareOneSummary(t *testing.T) {
	d := &windowDef{}
	a := d.share(keySummary{oldest: windows.Window{Start: 0, End: 1000}})
	b := d.share(keySummary{oldest: windows.Window{Start: 0, End: 1000}})
	c := d.share(keySummary{oldest: windows.Window{Start: 1000, End: 2000}})
	if a != b || a == c {
		t.Errorf("equal summaries at %p and %p, another at %p", a, b, c)
	}
}

func TestSummariesTakeTheLeastOverTheLiveKeysTiesToTheLowerKey(t *testing.T) {
	topo, _, _ := newTestTopology(t, supervisionDevice)
	for _, k := range []string{"c", "a", "b"} {
		topo.router.route(&Inbound{Topic: "t/" + k, Payload: []byte(`{"ts":1733140000100,"v":1}`), QoS: 1, At: 1}, nil)
	}
	topo.router.route(&Inbound{Topic: "t/c", Payload: []byte(`{"ts":1733140001100,"v":1}`), QoS: 1, At: 1}, nil)
	topo.tick(10) // c's first window fires
	res, err := topo.system.Root.RequestFuture(topo.pipelines[0], &summariesWanted{}, time.Second).Result()
	if err != nil {
		t.Fatal(err)
	}
	first := windows.Window{Start: t0, End: t0 + 1000}
	if s := res.([]windowSummary); len(s) != 1 || s[0].oldestKey != "a" || s[0].oldest != first || s[0].nextKey != "a" || s[0].next != first {
		t.Errorf("%+v", s)
	}
}

func TestExplainAsksForTheDeviceWhenSeveralHaveTheWindow(t *testing.T) {
	var devs []*configs.Device
	for _, id := range []string{"d", "e"} {
		dev, err := configs.ParseDevice(id+".yaml", []byte(strings.Replace(explainDevice, "device: d", "device: "+id, 1)))
		if err != nil {
			t.Fatal(err)
		}
		devs = append(devs, dev)
	}
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cfg := &configs.Daemon{CommitInterval: 50_000_000, Limits: configs.Limits{MaxInflight: configs.DefaultMaxInflight}, Devices: devs}
	m := NewMetrics()
	topo, err := buildTopology(cfg, store, m, slog.New(slog.DiscardHandler), actor.NewSynchronizedDispatcher(300), &capture{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(topo.system.Shutdown)
	d := &Daemon{topo: topo, metrics: m, store: store, status: sampler(m, 0)}
	var body struct{ Error string }
	get(t, d, "window=w&key=a", http.StatusBadRequest, &body)
	if body.Error != `device ambiguous: devices d, e all have a window "w": add device=D` {
		t.Errorf("error %q", body.Error)
	}
	var e explain.Explanation
	get(t, d, "device=e&window=w&key=a", http.StatusOK, &e)
	if e.Device != "e" || e.State != explain.None {
		t.Errorf("%+v", e)
	}
}
