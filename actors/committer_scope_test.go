package actors

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// scopeDevice keys readings by a payload field, so one concrete topic (a stream of its
// own) can feed several keys and one key can be fed by several topics.
const scopeDevice = `device: d
streams:
  - name: s
    topic: s/+
    qos: 1
    timestamp: {field: ts, unit: ms}
    key: {field: k}
    watermark: {strategy: bounded, max_out_of_orderness: 0s}
windows:
  - {name: w, stream: s, type: tumbling, size: 1s, aggregates: [count]}
`

const scopeT0 = 1733140000000

// resultTopology runs device with a commit interval no test waits for and no
// ticks: every commit is one that a result asked for.
func resultTopology(t *testing.T, device string) (*topology, *persist.Store, published) {
	dev, err := configs.ParseDevice("dev.yaml", []byte(device))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &configs.Daemon{CommitInterval: time.Hour, CommitOnResult: true, Limits: configs.Limits{MaxInflight: configs.DefaultMaxInflight}, Devices: []*configs.Device{dev}}
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	pub := make(published, 10)
	topo, err := buildTopology(cfg, store, NewMetrics(), slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), nil, pub, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(topo.system.Shutdown)
	<-topo.restore.restored()
	return topo, store, pub
}

func routeReading(topo *topology, topic, key string, ts int64) {
	topo.router.route(&Inbound{Topic: topic, Payload: fmt.Appendf(nil, `{"k":%q,"ts":%d}`, key, ts), QoS: 1, At: 1}, func() {})
}

// emitAll makes every source emit its watermark, so each has a stream state to save
// at its next flush, and waits until the stream topics have.
func emitAll(t *testing.T, topo *topology, topics ...string) {
	t.Helper()
	topo.tick(1)
	deadline := time.Now().Add(10 * time.Second)
	for _, topic := range topics {
		for topo.env.metrics.Streams.Topic("d", "s", topic).Watermark.Get() == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("stream %s emitted no watermark", topic)
			}
			time.Sleep(time.Millisecond) // polling a gauge
		}
	}
}

// awaitOpen waits until the window definition holds n windows: the readings that
// opened them were applied.
func awaitOpen(t *testing.T, topo *topology, n float64) {
	t.Helper()
	g := topo.env.metrics.OpenWindows.WithLabelValues("d", "w")
	deadline := time.Now().Add(10 * time.Second)
	for testutil.ToFloat64(g) != n {
		if time.Now().After(deadline) {
			t.Fatalf("open windows %v, want %v", testutil.ToFloat64(g), n)
		}
		time.Sleep(time.Millisecond) // polling a gauge
	}
}

func awaitResult(t *testing.T, pub published, key string) {
	t.Helper()
	select {
	case got := <-pub:
		if !strings.Contains(got, fmt.Sprintf(`"key":%q`, key)) {
			t.Fatalf("published %s, want the result of key %s", got, key)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no result of key %s published", key)
	}
}

func savedStreams(t *testing.T, store *persist.Store) map[string]bool {
	t.Helper()
	st, err := store.LoadDevice("d")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for s := range st.Streams {
		out[s] = true
	}
	return out
}

// A result's commit asks only the sources of the streams that fed its key: a
// stream that fed other keys only keeps its changes for a later commit.
func TestAResultCommitsOnlyTheStreamsThatFedItsKey(t *testing.T) {
	topo, store, pub := resultTopology(t, scopeDevice)
	routeReading(topo, "s/3", "c", scopeT0+100)
	routeReading(topo, "s/1", "a", scopeT0+100)
	awaitOpen(t, topo, 2)
	emitAll(t, topo, "s/1", "s/3")
	routeReading(topo, "s/1", "a", scopeT0+1100) // moves s/1 past [t0, t0+1s): key a fires
	awaitResult(t, pub, "a")
	saved := savedStreams(t, store)
	if !saved["s/1"] || saved["s/3"] {
		t.Fatalf("saved streams %v after the result of key a, want s/1 and not s/3", saved)
	}
}

// A key in the commit that was also fed by a stream outside it holds that stream's
// readings in its state, so the result is published only once that stream's state
// is committed too: a restart must not find a key's readings without the watermark
// of the stream they came from.
func TestAKeyFedByAStreamOutsideAResultsCommitWaitsForThatStream(t *testing.T) {
	topo, store, pub := resultTopology(t, scopeDevice)
	routeReading(topo, "s/2", "b", scopeT0+100)
	awaitOpen(t, topo, 1)
	routeReading(topo, "s/1", "b", scopeT0+200) // s/1 now feeds b as well as a
	routeReading(topo, "s/1", "a", scopeT0+100)
	awaitOpen(t, topo, 2)
	emitAll(t, topo, "s/1", "s/2")
	routeReading(topo, "s/1", "a", scopeT0+1100)
	awaitResult(t, pub, "a")
	if saved := savedStreams(t, store); !saved["s/1"] || !saved["s/2"] {
		t.Fatalf("saved streams %v when the result of key a was published, want s/1 and s/2 (key b holds a reading of s/2)", saved)
	}
}
