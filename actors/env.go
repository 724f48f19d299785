package actors

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/persist"
)

// env is what every actor of one daemon (or one replay) shares. It is built once and
// read-only afterwards.
type env struct {
	system   *actor.ActorSystem
	store    *persist.Store
	metrics  *Metrics
	log      *slog.Logger
	sink     *actor.PID       // publishes committed results
	late     *actor.PID       // ships committed late records; nil: log and count them
	dispatch actor.Dispatcher // workers live, synchronized in replay

	traceWatermark func(device string, m *WatermarkEmitted) // replay --watermarks
	// traceOutput is told of every result and late record as it is produced, before
	// it is committed: replay writes its output in that order.
	traceOutput func(payload []byte)
	// intakeBlocked reports a full upstream outbox under policy block: QoS 0 messages
	// are shed and QoS 1 acknowledgements withheld, so the broker stops sending.
	intakeBlocked func() bool

	commitEvery   int64         // ms of processing time between group commits
	commitResults bool          // a result asks for a commit at once, not at the next interval
	resultGather  time.Duration // how long that ask waits for the results following it (resultGather)
	maxKeys       int           // keys per window definition (limits.max_keys_per_window); 0: no limit
	// streamRetention is how long a stream whose source is not running is
	// remembered (limits.stream_retention, ms); 0: for ever.
	streamRetention int64
	// restoreInChunks: pipelines restore saved streams and keys between messages
	// (live), not all before the first (replay, whose output must not depend on timing).
	restoreInChunks bool
	// passivateDelay, if set, replaces each window definition's passivate_after:
	// the property tests passivate keys at random points.
	passivateDelay func(win int) int64
	// passivateSourceDelay, if set, replaces each stream definition's delay
	// (its idle_timeout) before a quiet source is passivated.
	passivateSourceDelay func(def int) int64
	commitFailures       commit.Failures // devices whose last commit failed: health reports why
	// sinkRetrying: the sink holds results whose publish failed, which it retries
	// on ticks; the topology ticks it only then (a tick the sink does not need still
	// cost a worker and a timer a hundred times a second at rest).
	sinkRetrying atomic.Bool
	// ticks is when a live topology is ticked next (topology_tick_plan.go); nil in replay.
	ticks *tickPlan
	// uplinkBusy reports that the upstream actor holds records to send: it is
	// ticked every tickEvery meanwhile; nil without an uplink.
	uplinkBusy func() bool
	// outputs counts the units that took a result or a late record, in the order
	// they did: a commit numbers outbox entries in that order (see commit's committer.settle).
	outputs atomic.Uint64
}

func (e *env) blocked() bool { return e.intakeBlocked != nil && e.intakeBlocked() }

// commitDeps is what a device's committer needs of the daemon.
func (e *env) commitDeps() *commit.Deps {
	return &commit.Deps{
		Store: e.store, Log: e.log, Sink: e.sink, Late: e.late, Failures: &e.commitFailures,
		Commits: e.metrics.Commits, CommitErrors: e.metrics.CommitErrors, CommitSeconds: e.metrics.CommitSeconds,
		TellCommitted: e.commitResults, IntakeBlocked: e.intakeBlocked, Dispatch: e.dispatch,
	}
}

// produced reports a result or late record bound for the output (a local publish or
// the late output) to the replay, if any, at the moment it happens.
func (e *env) produced(payload []byte) []byte {
	if e.traceOutput != nil {
		e.traceOutput(payload)
	}
	return payload
}

// props builds actor props that run on the environment's dispatcher: workers live,
// the synchronized one in replay.
func (e *env) props(p actor.Producer, opts ...actor.PropsOption) *actor.Props {
	if e.dispatch != nil {
		opts = append(opts, actor.WithDispatcher(e.dispatch))
	}
	return actor.PropsFromProducer(p, opts...)
}
