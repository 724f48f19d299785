package actors

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/actors/workers"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// topology is the actor graph shared by `run` and `replay`; they differ only in the
// dispatcher, the publisher behind the sink and what receives late records.
type topology struct {
	system *actor.ActorSystem
	env    *env
	router *router
	// mu guards pipelines and router.devices for everyone but the router itself
	// (see router.gate): a live reload replaces both slices.
	mu        sync.RWMutex
	pipelines []*actor.PID
	unmatched burstLog
	longTopic burstLog
	restore   restoreGate // pipelines still restoring: not ready
}

// buildTopology spawns the sink and one pipeline per device; the pipelines read their
// saved state before they take a message. A nil dispatch is live: the actors run on
// workers.
func buildTopology(cfg *configs.Daemon, store *persist.Store, m *Metrics, log *slog.Logger,
	dispatch actor.Dispatcher, pub Publisher, late func(*env) *actor.PID) (*topology, error) {
	plans := make([]*plan, len(cfg.Devices))
	for i, d := range cfg.Devices {
		p, err := compile(d, cfg.Limits.MaxKeyBytes)
		if err != nil {
			return nil, err
		}
		plans[i] = p
	}
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		// protoactor narrates its own lifecycle at info; edged's log keeps its warnings.
		return slog.New(minLevel{log.Handler(), slog.LevelWarn}).With("component", "actor")
	}))
	live := dispatch == nil // the synchronized dispatcher is replay's and the deterministic tests'
	if live {
		dispatch = workers.New()
	}
	e := &env{
		system: system, store: store, metrics: m, log: log, dispatch: dispatch,
		commitEvery: max(cfg.CommitInterval.Milliseconds(), 1),
		// Live only: in replay nobody waits for a result, and the extra commits
		// would slow it down.
		commitResults:   live && cfg.CommitOnResult,
		resultGather:    resultGather,
		maxKeys:         cfg.Limits.MaxKeysPerWindow,
		streamRetention: cfg.Limits.StreamRetention.Milliseconds(),
		restoreInChunks: live,
		ticks:           tickPlanIf(live),
	}
	t := &topology{system: system, env: e, unmatched: burstLog{every: 10_000}, longTopic: burstLog{every: 10_000}}
	e.sink = system.Root.Spawn(e.props(func() actor.Actor { return newSink(e, pub) }))
	if late != nil {
		e.late = late(e)
	}
	t.router = &router{root: system.Root, blocked: e.blocked, spawnWait: spawnTimeout, log: log, gate: make(chan struct{}, 1), unmatched: func(topic string, at int64) {
		m.Unmatched.Inc()
		t.unmatched.log(log, at, "message on a topic no stream matches", "topic", topic)
	}, longTopic: func(topic string, at int64) {
		m.LongTopics.Inc()
		t.longTopic.log(log, at, "dropping a message whose topic is too long", "bytes", len(topic), "max", maxTopicBytes, "topic_start", topic[:64])
	}}
	for _, p := range plans {
		pid, dev, err := t.spawnDevice(p, cfg.Limits)
		if err != nil {
			return nil, err
		}
		t.pipelines = append(t.pipelines, pid)
		t.router.devices = append(t.router.devices, dev)
	}
	return t, nil
}

// spawnDevice starts the pipeline of one device; it reads the device's saved state
// before it takes a message.
func (t *topology) spawnDevice(p *plan, limits configs.Limits) (*actor.PID, routedDevice, error) {
	e := t.env
	inflight, sources, sched := commit.NewInflight(), newSourceIndex(), newSourceSchedule(e.ticks)
	dev := p.device.ID
	produce, restored := t.restore.watch(func() actor.Actor { return newPipeline(e, p, inflight, sources, sched) })
	props := e.props(produce, actor.WithSupervisor(newSupervisor(e.log, dev)))
	pid, err := t.system.Root.SpawnNamed(props, "device:"+dev)
	if err != nil {
		return nil, routedDevice{}, fmt.Errorf("starting device %s: %w", dev, err)
	}
	return pid, routedDevice{
		plan: p, pid: pid, inflight: inflight, sources: sources, sched: sched, restored: restored,
		maxInflight: int64(limits.MaxInflight), overload: e.metrics.Overload.WithLabelValues(dev).Inc,
	}, nil
}

// stoppedDevice names a device whose pipeline is no longer running (its supervisor
// gave up restarting it), or "".
func (t *topology) stoppedDevice() string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for i, p := range t.pipelines {
		if _, ok := t.system.ProcessRegistry.GetLocal(p.Id); !ok {
			return t.router.devices[i].plan.device.ID
		}
	}
	return ""
}

// stop stops every actor and waits until each has ended its turn: shutting the actor
// system down only refuses new spawns, and the running actors, a pipeline still
// restoring its keys above all, would read the store after it closed. A pipeline
// stops its children first. By now what the actors hold is committed and published
// (Daemon.stop), so they are all asked at once.
func (t *topology) stop() {
	t.mu.RLock()
	pids := slices.Clone(t.pipelines)
	t.mu.RUnlock()
	if t.env.late != nil {
		pids = append(pids, t.env.late)
	}
	pids = append(pids, t.env.sink)
	stopped := make([]*actor.Future, len(pids))
	for i, pid := range pids {
		stopped[i] = t.system.Root.StopFuture(pid)
	}
	for i, f := range stopped {
		if err := f.Wait(); err != nil {
			t.env.log.Warn("an actor did not stop in time; the state closes under it", "actor", pids[i].Id, "err", err)
		}
	}
}

// tick sends processing time to every pipeline and the sink.
func (t *topology) tick(now int64) {
	tk := &Tick{Now: now}
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, p := range t.pipelines {
		t.system.Root.Send(p, tk)
	}
	if t.env.sinkRetrying.Load() {
		t.system.Root.Send(t.env.sink, tk)
	}
	if t.env.late != nil {
		t.system.Root.Send(t.env.late, tk)
	}
}

// flushAll makes every pipeline commit what it has and returns channels closed when
// each commit is done.
func (t *topology) flushAll() []chan struct{} {
	var dones []chan struct{}
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, p := range t.pipelines {
		d := make(chan struct{})
		t.system.Root.Send(p, &FlushNow{Done: d})
		dones = append(dones, d)
	}
	return dones
}

// minLevel drops records below a level before they reach the wrapped handler.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(attrs), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
