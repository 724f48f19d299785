package actors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// TestLivePassivationLosesNothing runs the live dispatcher with keys and topics that
// passivate as soon as they may, while a second goroutine routes readings to them as
// the MQTT client would: every passivation races the readings that bring the actor
// back. Every reading must be acknowledged once and counted once in the final windows.
func TestLivePassivationLosesNothing(t *testing.T) {
	const (
		topics   = 40
		readings = 2000
		t0       = int64(1_733_140_000_000)
	)
	dev, err := configs.ParseDevice("dev.yaml", []byte(`device: d
streams:
  - name: s
    topic: t/+
    timestamp: {field: ts, unit: ms}
    key: {field: k}
    watermark: {max_out_of_orderness: 0s, interval: 10ms, idle_timeout: 20ms}
windows:
  - {name: w, stream: s, type: tumbling, size: 100ms, aggregates: [count], output: {topic: "o/{key}"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &configs.Daemon{CommitInterval: 10_000_000, Limits: configs.Limits{MaxInflight: configs.DefaultMaxInflight, MaxKeysPerWindow: 1000}, Devices: []*configs.Device{dev}}
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	pub := &capture{}
	metrics := NewMetrics()
	topo, err := buildTopology(cfg, store, metrics, slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), nil, pub, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(topo.system.Shutdown)
	topo.env.passivateDelay = func(int) int64 { return 0 }
	topo.env.passivateSourceDelay = func(int) int64 { return 0 }

	// The processing clock: the ticker moves it, the readings are stamped with it.
	var clock atomic.Int64
	clock.Store(t0)
	stop := make(chan struct{})
	var ticking sync.WaitGroup
	ticking.Add(1)
	go func() {
		defer ticking.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				topo.tick(clock.Add(5))
			}
		}
	}()

	var acked atomic.Int64
	routed := map[string]int{} // readings routed to each key's window, "k<key>/<start>"
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range readings {
		// A key usually comes from its own topic, sometimes from another; quiet
		// spells between bursts let actors go, and the next burst brings them back.
		topic := rng.IntN(topics)
		key := topic
		if rng.IntN(10) == 0 {
			key = rng.IntN(topics)
		}
		if i%50 == 0 {
			// A quiet spell: 300 ms of the clock pass with nothing routed.
			quiet := clock.Load() + 300
			for clock.Load() < quiet {
				runtime.Gosched()
			}
		}
		at := clock.Load()
		routed[fmt.Sprintf("k%d/%d", key, at-at%100)]++
		in := &Inbound{Topic: fmt.Sprintf("t/%d", topic), QoS: 1, At: at,
			Payload: fmt.Appendf(nil, `{"ts":%d,"k":"k%d"}`, at, key)}
		var once atomic.Bool
		topo.router.route(in, func() {
			if !once.CompareAndSwap(false, true) {
				t.Errorf("a reading was acknowledged twice")
			}
			acked.Add(1)
		})
	}
	// Every reading is acknowledged once its window is committed.
	deadline := time.Now().Add(time.Minute)
	for acked.Load() < readings && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	ticking.Wait()
	if n := acked.Load(); n != readings {
		t.Fatalf("%d of %d readings acknowledged", n, readings)
	}
	// Close every window, and count what they hold. Results go out after their
	// commit, through the sink's mailbox, and a passivated key comes back to fire:
	// under load a flush may end before all of them are published, so the count is
	// taken after each flush until it adds up or a deadline passes.
	topo.system.Root.Send(topo.pipelines[0], &MarkWatermark{Watermark: 1 << 62, At: clock.Load()})
	final := map[string]float64{}
	count := func() (total, late float64) {
		pub.mu.Lock()
		defer pub.mu.Unlock()
		clear(final)
		for _, p := range pub.payloads {
			var r struct {
				Key      string             `json:"key"`
				Start    int64              `json:"start"`
				Revision int                `json:"revision"`
				Values   map[string]float64 `json:"values"`
			}
			if err := json.Unmarshal([]byte(p), &r); err != nil {
				t.Fatal(err)
			}
			final[fmt.Sprint(r.Key, "/", r.Start)] = r.Values["count"] // revisions come in order per window
		}
		for _, c := range final {
			total += c
		}
		return total, counterSum(t, metrics, "edged_late_total") + counterSum(t, metrics, "edged_dropped_total")
	}
	var total, late float64
	for deadline := time.Now().Add(30 * time.Second); ; {
		for _, d := range topo.flushAll() {
			<-d
		}
		if total, late = count(); total+late == readings || time.Now().After(deadline) {
			break
		}
	}
	if total+late != readings {
		t.Errorf("the windows count %v readings and %v went late or were dropped, want %d in all", total, late, readings)
		logMiscounted(t, pub, routed, final)
	}
	keys, sources := counterSum(t, metrics, "edged_window_passivations_total"), counterSum(t, metrics, "edged_stream_passivations_total")
	t.Logf("%v window actors and %v sources passivated", keys, sources)
	if keys == 0 || sources == 0 {
		t.Errorf("nothing was passivated: the test tests too little")
	}
}

// logMiscounted names each window whose last result does not count what was routed
// to it, with every result it published in order: what a failure needs to be told
// apart (a lost result, a lost reading, revisions out of order).
func logMiscounted(t *testing.T, pub *capture, routed map[string]int, final map[string]float64) {
	t.Helper()
	pub.mu.Lock()
	defer pub.mu.Unlock()
	for w, n := range routed {
		if final[w] == float64(n) {
			continue
		}
		var history []string
		for _, p := range pub.payloads {
			var r struct {
				Key   string `json:"key"`
				Start int64  `json:"start"`
			}
			if json.Unmarshal([]byte(p), &r) == nil && fmt.Sprint(r.Key, "/", r.Start) == w {
				history = append(history, p)
			}
		}
		t.Logf("window %s: %d readings routed, last result counts %v; its results: %v", w, n, final[w], history)
	}
}
