package actors

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// capture is a Publisher that keeps what the sink published.
type capture struct {
	mu       sync.Mutex
	payloads []string
}

func (c *capture) Publish(_ string, _ byte, payload []byte, done func(error)) {
	c.mu.Lock()
	c.payloads = append(c.payloads, string(payload))
	c.mu.Unlock()
	done(nil)
}

// newTestTopology runs one device on the synchronized dispatcher: every Send has
// been fully processed when it returns, so tests need no waiting.
func newTestTopology(t *testing.T, deviceYAML string) (*topology, *capture, *bytes.Buffer) {
	t.Helper()
	dev, err := configs.ParseDevice("dev.yaml", []byte(deviceYAML))
	if err != nil {
		t.Fatal(err)
	}
	// MaxInflight is the default: QoS 1 intake past it waits for a commit, and these
	// tests flush by hand, some after thousands of messages.
	cfg := &configs.Daemon{CommitInterval: 50_000_000, Limits: configs.Limits{MaxInflight: configs.DefaultMaxInflight}, Devices: []*configs.Device{dev}}
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	pub := &capture{}
	topo, err := buildTopology(cfg, store, NewMetrics(), log, actor.NewSynchronizedDispatcher(300), pub, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(topo.system.Shutdown)
	return topo, pub, logs
}

const supervisionDevice = `
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
    size: 1s
    aggregates: [count, sum(v)]
`

func TestAPanickingWindowActorRestartsAndTheOthersKeepRunning(t *testing.T) {
	topo, pub, logs := newTestTopology(t, supervisionDevice)
	root := topo.system.Root
	publish := func(at int64, topic, payload string) {
		topo.router.route(&Inbound{Topic: topic, Payload: []byte(payload), QoS: 1, At: at}, nil)
	}
	const t0 int64 = 1_733_140_000_000
	publish(1, "t/a", `{"ts":1733140000100,"v":1}`)
	publish(1, "t/b", `{"ts":1733140000100,"v":1}`)
	topo.tick(10)
	for _, d := range topo.flushAll() {
		<-d
	}
	// A record whose values do not match the window's fields makes the window actor
	// of key a panic while it handles it.
	root.Send(topo.pipelines[0], &routeRecord{rec: &RecordDecoded{Stream: "t/a", Key: "a", TS: t0 + 200, ack: commit.NewAck(nil, nil)}})
	publish(20, "t/a", `{"ts":1733140000300,"v":2}`)
	publish(20, "t/b", `{"ts":1733140000300,"v":2}`)
	publish(30, "t/a", `{"ts":1733140002000,"v":0}`)
	publish(30, "t/b", `{"ts":1733140002000,"v":0}`)
	topo.tick(40)
	for _, d := range topo.flushAll() {
		<-d
	}
	if !strings.Contains(logs.String(), "actor failed") || !strings.Contains(logs.String(), "win:w:a") {
		t.Errorf("the failure was not logged with the actor's window and key:\n%s", logs.String())
	}
	pub.mu.Lock()
	defer pub.mu.Unlock()
	got := strings.Join(pub.payloads, "\n")
	// Key a restarted from its last commit (the record at 100) and took the record at
	// 300; key b never noticed.
	for _, want := range []string{
		`"key":"a","start":1733140000000,"end":1733140001000,"revision":0,"kind":"on_time","values":{"count":2,"sum_v":3}`,
		`"key":"b","start":1733140000000,"end":1733140001000,"revision":0,"kind":"on_time","values":{"count":2,"sum_v":3}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing result %s in\n%s", want, got)
		}
	}
}

func TestThousandsOfLateRecordsBetweenTwoFlushesCommit(t *testing.T) {
	topo, pub, logs := newTestTopology(t, strings.Replace(supervisionDevice,
		"    aggregates: [count, sum(v)]", "    aggregates: [count, sum(v)]\n    late: \"topic:late\"", 1))
	publish := func(at int64, payload string) {
		topo.router.route(&Inbound{Topic: "t/a", Payload: []byte(payload), QoS: 1, At: at}, nil)
	}
	publish(1, `{"ts":1733140010000,"v":1}`)
	topo.tick(10) // the watermark passes the first windows: what follows is too late
	pad := strings.Repeat("x", 400)
	const late = 5000
	for i := range late {
		publish(20, fmt.Sprintf(`{"ts":%d,"v":%d,"pad":%q}`, int64(1_733_140_000_000)+int64(i), i, pad))
	}
	for _, d := range topo.flushAll() {
		<-d
	}
	if n := testutil.ToFloat64(topo.env.metrics.CommitErrors); n != 0 {
		t.Fatalf("%v commit errors:\n%s", n, logs.String())
	}
	pub.mu.Lock()
	defer pub.mu.Unlock()
	got := 0
	for _, p := range pub.payloads {
		if strings.Contains(p, `"reason":"too_late"`) {
			got++
		}
	}
	if got != late {
		t.Errorf("%d late records published, want %d", got, late)
	}
}

func TestAStoppedPipelineIsReported(t *testing.T) {
	topo, _, _ := newTestTopology(t, supervisionDevice)
	if d := topo.stoppedDevice(); d != "" {
		t.Fatalf("stoppedDevice = %q with every pipeline running", d)
	}
	if err := topo.system.Root.StopFuture(topo.pipelines[0]).Wait(); err != nil {
		t.Fatal(err)
	}
	if d := topo.stoppedDevice(); d != "d" {
		t.Errorf("stoppedDevice = %q after device d's pipeline stopped, want d", d)
	}
}

// newTestHandle is the handle of a source spawned outside a pipeline.
func newTestHandle() *sourceHandle {
	h := &sourceHandle{}
	new(sourceSchedule).add(h, 0)
	return h
}
