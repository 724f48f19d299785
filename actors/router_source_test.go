package actors

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/testing/broker"
)

// heldDispatcher runs mailboxes on goroutines, except while held: then the
// mailboxes scheduled wait until release, as actors do behind a pipeline busy for
// longer than any timeout.
type heldDispatcher struct {
	actor.Dispatcher
	mu      sync.Mutex
	holding bool
	held    []func()
}

func (d *heldDispatcher) Schedule(fn func()) {
	d.mu.Lock()
	if d.holding {
		d.held = append(d.held, fn)
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
	d.Dispatcher.Schedule(fn)
}

func (d *heldDispatcher) hold() {
	d.mu.Lock()
	d.holding = true
	d.mu.Unlock()
}

func (d *heldDispatcher) release() {
	d.mu.Lock()
	held := d.held
	d.held, d.holding = nil, false
	d.mu.Unlock()
	for _, fn := range held {
		d.Dispatcher.Schedule(fn)
	}
}

// A pipeline that takes longer than the router's wait to start a new topic's source
// (a long restore, a busy mailbox) must still get the message: left unacknowledged,
// the broker would redeliver it only after the connection is lost.
func TestAMessageWhoseSourceIsSlowToStartIsDeliveredWithoutAReconnect(t *testing.T) {
	dev, err := configs.ParseDevice("dev.yaml", []byte(supervisionDevice))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &configs.Daemon{CommitInterval: time.Hour, Limits: configs.Limits{MaxInflight: configs.DefaultMaxInflight}, Devices: []*configs.Device{dev}}
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	logs := &broker.SyncBuffer{}
	dispatch := &heldDispatcher{Dispatcher: actor.NewDefaultDispatcher(300)}
	topo, err := buildTopology(cfg, store, NewMetrics(), slog.New(slog.NewTextHandler(logs, nil)), dispatch, &capture{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(topo.system.Shutdown)
	<-topo.restore.restored()
	topo.router.spawnWait = time.Millisecond

	dispatch.hold() // the pipeline answers nothing until released
	acked, routed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(routed)
		topo.router.route(&Inbound{Topic: "t/a", Payload: []byte(`{"ts":1733140000100,"v":1}`), QoS: 1, At: 1}, func() { close(acked) })
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "intake is waiting for it") && !closed(routed) {
		if time.Now().After(deadline) {
			t.Fatal("the router neither gave up nor said it waits for the source")
		}
		time.Sleep(time.Millisecond) // polling the log
	}
	dispatch.release()
	for !closed(acked) {
		if time.Now().After(deadline) {
			t.Fatal("the message was never acknowledged")
		}
		for _, d := range topo.flushAll() {
			<-d
		}
	}
	<-routed
}
