package actors

import (
	"errors"
	"log/slog"
	"slices"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
)

// flakyPublisher fails the first fails publishes and acknowledges the rest.
type flakyPublisher struct{ fails int }

func (p *flakyPublisher) Publish(_ string, _ byte, _ []byte, done func(error)) {
	if p.fails > 0 {
		p.fails--
		done(errors.New("broker gone"))
		return
	}
	done(nil)
}

// TestTheSinkIsTickedOnlyWhileItHasPublishesToRetry checks that the topology's
// ticks reach the sink only while a publish failed, and that the retry they drive
// still publishes it.
func TestTheSinkIsTickedOnlyWhileItHasPublishesToRetry(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return log }))
	defer system.Shutdown()
	e := &env{system: system, metrics: NewMetrics(), log: log, dispatch: actor.NewSynchronizedDispatcher(300)}
	var published []uint64
	committer := system.Root.Spawn(e.props(func() actor.Actor {
		return actor.ReceiveFunc(func(ctx actor.Context) {
			if m, ok := ctx.Message().(*Published); ok {
				published = append(published, m.Seqs...)
			}
		})
	}))
	e.sink = system.Root.Spawn(e.props(func() actor.Actor { return newSink(e, &flakyPublisher{fails: 2}) }))
	topo := &topology{system: system, env: e}
	if e.sinkRetrying.Load() {
		t.Fatal("a sink with nothing to retry wants ticks")
	}
	system.Root.Send(e.sink, &Enqueued{ReplyTo: committer, Entries: []outboxEntry{{Seq: 1, Topic: "out/a", QoS: 1}}})
	for now, tries := int64(0), 0; len(published) == 0; now += 10 {
		if !e.sinkRetrying.Load() {
			t.Fatalf("at %d the sink holds a failed publish but wants no tick", now)
		}
		if tries++; tries > 1000 {
			t.Fatal("the failed publish was never retried")
		}
		topo.tick(now)
	}
	if !slices.Equal(published, []uint64{1}) || e.sinkRetrying.Load() {
		t.Fatalf("published %v, still retrying %v; want [1] and no more ticks", published, e.sinkRetrying.Load())
	}
}
