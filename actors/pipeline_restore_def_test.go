package actors

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// A window whose definition changed across a restart starts empty, and its old
// windows must not come back at a later restart under the new definition.
func TestAChangedWindowDefinitionsOldStateNeverComesBack(t *testing.T) {
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run := func(size string, readings ...string) string {
		t.Helper()
		dev, err := configs.ParseDevice("dev.yaml", []byte(strings.Replace(supervisionDevice, "size: 1s", "size: "+size, 1)))
		if err != nil {
			t.Fatal(err)
		}
		cfg := &configs.Daemon{CommitInterval: 50_000_000, Limits: configs.Limits{MaxInflight: configs.DefaultMaxInflight}, Devices: []*configs.Device{dev}}
		pub := &capture{}
		topo, err := buildTopology(cfg, store, NewMetrics(), slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)),
			actor.NewSynchronizedDispatcher(300), pub, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer topo.system.Shutdown()
		for _, r := range readings {
			topo.router.route(&Inbound{Topic: "t/a", Payload: []byte(r), QoS: 1, At: 1}, nil)
		}
		topo.tick(10)
		for _, d := range topo.flushAll() {
			<-d
		}
		pub.mu.Lock()
		defer pub.mu.Unlock()
		return strings.Join(pub.payloads, "\n")
	}
	run("10s", `{"ts":1733140005100,"v":1}`) // a 10 s window [..000000, ..010000) stays open
	run("2s", `{"ts":1733140005200,"v":2}`)  // starts empty: a 2 s window [..004000, ..006000)
	got := run("2s", `{"ts":1733140030000,"v":0}`)
	want := `"start":1733140004000,"end":1733140006000,"revision":0,"kind":"on_time","values":{"count":1,"sum_v":2}`
	if !strings.Contains(got, want) || strings.Contains(got, `"end":1733140010000`) || strings.Count(got, `"kind":"on_time"`) != 1 {
		t.Errorf("after the second restart under the 2 s definition got\n%s\nwant only %s", got, want)
	}
}
