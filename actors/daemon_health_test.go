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

// A stall that is not the disk must not be reported as one: /healthz names every
// cause it knows, with the commit's own error.
func TestHealthNamesTheRealCauseOfAStall(t *testing.T) {
	dev, err := configs.ParseDevice("dev.yaml", []byte(supervisionDevice))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &configs.Daemon{CommitInterval: 50_000_000, Limits: configs.Limits{MaxInflight: 1000}, Devices: []*configs.Device{dev}}
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	topo, err := buildTopology(cfg, store, NewMetrics(), log, actor.NewSynchronizedDispatcher(300), &capture{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(topo.system.Shutdown)
	d := &Daemon{topo: topo, store: store, broker: "tcp://xxxxx@gw:1883"}

	// A closed store refuses writes with Badger's own error: a stall that is not
	// the disk's.
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	topo.router.route(&Inbound{Topic: "t/a", Payload: []byte(`{"ts":1733140000100,"v":1}`), QoS: 1, At: 1}, nil)
	topo.tick(10)
	topo.tick(100) // past the commit interval: the commit is tried and fails

	ok, status := d.Health()
	if ok {
		t.Fatalf("Health() = ok, %q while commits fail", status)
	}
	for _, want := range []string{
		"broker tcp://xxxxx@gw:1883 disconnected",
		"state commits failing for device d: committing state in memory: Writes are blocked",
		"intake stalled",
	} {
		if !strings.Contains(status, want) {
			t.Errorf("Health() = %q, want it to say %q", status, want)
		}
	}
	if strings.Contains(status, "disk") {
		t.Errorf("Health() = %q blames the disk for a stall that is not the disk's", status)
	}
}
