package actors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// A live restart serves messages while its saved keys come back in the background.
// A message that arrives at once must be taken (not left to time out while the
// device restores, unacknowledged until a reconnect), and its key must come back with
// its saved windows first: never a fresh empty key, so no window is counted twice or
// lost, whether the key was still waiting for its chunk or not.
func TestALiveRestartServesMessagesWhileKeysRestore(t *testing.T) {
	const keys = 10_000
	const t0 int64 = 1_733_140_000_000
	dev, err := configs.ParseDevice("dev.yaml", []byte(supervisionDevice))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &configs.Daemon{CommitInterval: 50_000_000, Limits: configs.Limits{MaxInflight: configs.DefaultMaxInflight, MaxKeysPerWindow: keys}, Devices: []*configs.Device{dev}}
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	log := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	seed, err := buildTopology(cfg, store, NewMetrics(), log, actor.NewSynchronizedDispatcher(300), &capture{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reading := func(key string, ts int64) *Inbound {
		return &Inbound{Topic: "t/" + key, Payload: []byte(fmt.Sprintf(`{"ts":%d,"v":1}`, ts)), QoS: 1, At: 1}
	}
	for i := range keys {
		seed.router.route(reading(fmt.Sprintf("k%05d", i), t0+100), nil)
		if i%1000 == 999 {
			for _, d := range seed.flushAll() {
				<-d
			}
		}
	}
	seed.system.Shutdown()

	pub := &capture{}
	topo, err := buildTopology(cfg, store, NewMetrics(), log, nil, pub, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(topo.system.Shutdown)
	// Far shorter than restoring every key takes, far longer than a chunk.
	topo.router.spawnWait = time.Second
	// Keys restored first, in the middle and last; the last also gets one more
	// reading in its open window before the one that closes it.
	want := map[string]float64{"k00000": 1, "k05000": 1, "k09999": 2}
	var acks []chan struct{}
	route := func(in *Inbound) {
		acked := make(chan struct{})
		acks = append(acks, acked)
		topo.router.route(in, func() { close(acked) })
	}
	route(reading("k09999", t0+200))
	for k := range want {
		route(reading(k, t0+1500)) // closes the saved window
	}
	got := map[string]float64{}
	deadline := time.Now().Add(time.Minute)
	for now := int64(10); len(got) < len(want); now += 10 {
		if time.Now().After(deadline) {
			t.Fatalf("within a minute only these saved windows fired: %v", got)
		}
		topo.tick(now)
		for _, d := range topo.flushAll() {
			<-d
		}
		pub.mu.Lock()
		for _, p := range pub.payloads {
			var r struct {
				Key    string             `json:"key"`
				Start  int64              `json:"start"`
				Values map[string]float64 `json:"values"`
			}
			if err := json.Unmarshal([]byte(p), &r); err != nil {
				t.Fatal(err)
			}
			if r.Start != t0 {
				t.Errorf("a window that was not saved fired: %s", p)
			}
			got[r.Key] = r.Values["count"]
		}
		pub.payloads = nil
		pub.mu.Unlock()
	}
	for k, c := range want {
		if got[k] != c {
			t.Errorf("key %s counted %v in its saved window, want %v", k, got[k], c)
		}
	}
	for _, acked := range acks {
		select {
		case <-acked:
		case <-time.After(time.Minute):
			t.Fatal("a message that arrived during the restore was never acknowledged")
		}
	}
}
