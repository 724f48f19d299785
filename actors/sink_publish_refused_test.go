package actors

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/edged/edged/mqtt"
)

// refusingPublisher acknowledges at once what the real client would send and refuses
// the rest as the real client does.
type refusingPublisher struct{}

func (refusingPublisher) Publish(topic string, _ byte, _ []byte, done func(error)) {
	if !mqtt.ValidTopicName(topic) {
		done(mqtt.ErrInvalidTopic)
		return
	}
	done(nil)
}

func TestSinkDropsAResultWhoseTopicIsInvalidInsteadOfRetryingIt(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	e := &env{metrics: NewMetrics(), log: log}
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return log }))
	defer system.Shutdown()
	published := make(chan uint64, 8)
	committer := system.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		if m, ok := ctx.Message().(*Published); ok {
			for _, s := range m.Seqs {
				published <- s
			}
		}
	}))
	sink := system.Root.Spawn(e.props(func() actor.Actor { return newSink(e, refusingPublisher{}) }))
	system.Root.Send(sink, &Enqueued{ReplyTo: committer, Entries: []outboxEntry{
		{Seq: 1, Topic: "out/a#b", QoS: 1}, {Seq: 2, Topic: "out/ok", QoS: 1}, {Seq: 3, Topic: "out/a\x00b", QoS: 1},
	}})
	var got []uint64
	for len(got) < 3 {
		select {
		case s := <-published:
			got = append(got, s)
		case <-time.After(10 * time.Second):
			t.Fatalf("outbox entries %v reported done, want 1, 2 and 3", got)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Fatalf("outbox entries %v reported done, want 1, 2 and 3", got)
	}
	if n := testutil.ToFloat64(e.metrics.PublishRefused.WithLabelValues("local")); n != 2 {
		t.Errorf("edged_publish_refused_total{output=local} = %v, want 2", n)
	}
	if n := testutil.ToFloat64(e.metrics.PublishErrors); n != 0 {
		t.Errorf("edged_publish_errors_total = %v, want 0: nothing is retried", n)
	}
}
