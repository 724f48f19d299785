package actors

import (
	"log/slog"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/actors/uplink"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/testing/broker"
)

// ackHold sits in front of the upstream actor and holds the broker's answers to its
// publishes, and every message after the first it holds, until the test lets them
// through or a message of the reload's own reaches the actor: the answer to a late
// record's publish then lands during a reload, just before anything the reload tells
// the uplink.
type ackHold struct {
	held     atomic.Int32 // read by the test; the rest only in the actor's turns
	queue    []*actor.MessageEnvelope
	released bool
}

// releaseAcks lets the held messages through.
type releaseAcks struct{}

func (h *ackHold) middleware(next actor.ReceiverFunc) actor.ReceiverFunc {
	return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
		if _, ok := env.Message.(*releaseAcks); ok {
			h.release(c, next)
			return
		}
		if !h.released && fromReload(env.Message) {
			h.release(c, next)
		}
		if !h.released && (len(h.queue) > 0 || uplinkInternal(env.Message)) {
			h.queue = append(h.queue, env)
			h.held.Add(1)
			return
		}
		next(c, env)
	}
}

func (h *ackHold) release(c actor.ReceiverContext, next actor.ReceiverFunc) {
	h.released = true
	for _, env := range h.queue {
		next(c, env)
	}
	h.queue = nil
}

// uplinkInternal is a message the upstream actor sends itself (a broker's answer).
func uplinkInternal(m any) bool {
	return reflect.TypeOf(m).Elem().PkgPath() == reflect.TypeOf(uplink.Link{}).PkgPath()
}

// fromReload is a message neither the uplink's own, nor its everyday traffic, nor
// the actor system's: the reload's.
func fromReload(m any) bool {
	switch m.(type) {
	case *outbox.Enqueued, *outbox.Tick:
		return false
	}
	return !uplinkInternal(m) && reflect.TypeOf(m).Elem().PkgPath() != reflect.TypeOf(actor.PID{}).PkgPath()
}

// A late record whose delivery upstream is confirmed while a reload replaces its
// device must leave the outbox all the same: a confirmation sent to the stopping
// committer was lost, and the record shipped again at the next start.
func TestALateRecordConfirmedDuringAReloadLeavesTheOutbox(t *testing.T) {
	cloud := broker.Start(t)
	ucfg := configs.Upstream{URL: cloud.URL(), ClientID: "edged-upstream", TopicPrefix: "cloud/gw", Batch: configs.Batch{MaxRecords: 10}}
	link, err := uplink.Start(t.Context(), ucfg, slog.New(slog.DiscardHandler), NewMetrics().Uplink)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	hold := &ackHold{}
	var up *actor.PID
	late := func(e *env) *actor.PID {
		props := func(p actor.Producer, opts ...actor.PropsOption) *actor.Props {
			return e.props(p, append(opts, actor.WithReceiverMiddleware(hold.middleware))...)
		}
		up = link.Spawn(e.system.Root, props, e.store, e.log, nil)
		return up
	}
	d, _, logs, path := reloadDaemonWith(t, map[string]string{"a": reloadDeviceFile("a")}, persist.Options{Durability: persist.Memory},
		actor.NewSynchronizedDispatcher(300), late)
	deadline := time.Now().Add(10 * time.Second)
	for !link.Connected() {
		if time.Now().After(deadline) {
			t.Fatal("the uplink did not connect")
		}
		time.Sleep(5 * time.Millisecond) // polling the connection
	}

	// An undecodable payload goes to the late output, and upstream once committed.
	d.topo.router.route(&Inbound{Topic: "a/k", Payload: []byte("not json"), QoS: 1, At: 1}, func() {})
	for _, done := range d.topo.flushAll() {
		<-done
	}
	for hold.held.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the late record's publish was never answered")
		}
		time.Sleep(time.Millisecond) // polling for the broker's answer
	}

	resizeW2(t, d, path, logs)
	d.topo.system.Root.Send(up, &releaseAcks{})

	q := outbox.UpstreamQueue("a")
	for d.store.Stats(q).Records > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the late record delivered during the reload is still in the outbox: the next start ships it again")
		}
		for _, done := range d.topo.flushAll() {
			<-done
		}
	}
}
