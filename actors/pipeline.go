package actors

import (
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

// pipeline is the supervisor of one device: it spawns a source actor per concrete
// topic and a window actor per window definition and key, introduces sources to the
// window actors they feed (after that, records and watermarks go directly), and
// drives the group commit.
type pipeline struct {
	env      *env
	plan     *plan
	inflight *inflight
	sources  *sourceIndex // shared with the router
	log      *slog.Logger

	committer *actor.PID
	srcDefs   []*sourceDef     // by stream definition, made once the committer exists
	winDefs   []*windowDef     // by window definition
	props     *actor.Props     // spawns every source and window actor: see spawn
	spawning  actor.Actor      // the actor props starts next
	quietKeys timers[quietKey] // window actors that reported quiet, by when to passivate them
	// Sources that reported quiet, by when to passivate them; those asked and not
	// answered yet, out of the router's index; those passivated (source_passivate.go).
	quietSources timers[quietTopic]
	passivating  map[string]*sourceHandle
	asleep       map[string]passivated
	forget       timers[string] // asleep streams, by when they are forgotten
	ahead        int            // replies sent ahead to the next epoch
	// committerPending: the committer holds deliveries for the next commit.
	committerPending bool
	sched            *sourceSchedule // which sources to tick and flush (pipeline_source_schedule.go); shared with the ticker
	keys             map[keyID]*keyRef
	pending          pendingRestore // saved streams and keys not restored yet (pipeline_restore.go)
	fedBy            fedBy
	touched          []*keyRef    // window actors sent records through the pipeline since the last flush
	keyCount         []int        // keys per window definition, those still restoring included
	refused          pendingUnits // readings of keys past the limit, on their way to the late output
	refusedLog       burstLog
	epoch            uint64
	committed        uint64 // the newest epoch the committer tried to commit
	committedAt      int64  // processing time committed last moved on
	lastFull         uint64 // the newest epoch that asked every actor with changes
	lastScoped       uint64 // the newest epoch that asked only the sources of some streams
	wanted           wantedCommit
	gathering        bool        // asks for a commit wait for resultGather to pass
	gatherTimer      *time.Timer // sends gathered; nil until the first gather

	inflightGauge  prometheus.Gauge // set at every tick
	nextFlush      int64
	nextSourceTick int64
	sourceTicked   atomic.Int64 // the time of the last source tick, which a woken source catches up on
	uptime         uptime
	advancing      bool            // at the last source tick, a saved state extrapolated from the uptime
	early          []earlySchedule // by window definition, for those with early firings
	now            int64           // processing time of the last tick
}

// earlySchedule is when a window definition fires early next and the window actors
// waiting for it.
type earlySchedule struct {
	next int64
	keys []*keyRef
}

// sourceHandle is a source actor as the router and the pipeline see it. The source
// sets dirty when it holds changes, so a flush skips the sources with nothing to say,
// and sleep while its checks have nothing to do, so a tick skips it
// (pipeline_source_schedule.go).
type sourceHandle struct {
	pid       *actor.PID
	dirty     atomic.Int32                // clean, dirtyPushed or dirtyTaken (pipeline_source_schedule.go)
	queued    atomic.Bool                 // in the schedule's woken stack
	sent      atomic.Uint64               // messages the router sent it
	closing   atomic.Bool                 // being passivated: the router asks the pipeline
	heard     atomic.Int64                // the status its window actors heard last, packed (status)
	advancing atomic.Bool                 // its saved state extrapolates from the device's uptime
	sleep     atomic.Pointer[sourceSleep] // nil while it wants every tick (source_sleep.go)

	schedule             *sourceSchedule
	nextDirty, nextWoken *stackNode // its nodes in the schedule's stacks, made at its first push

	// The pipeline's own.
	rank    uint64 // ticks and flushes go out by rank
	until   int64  // while in the sleep heap: when it wants its next tick
	heapAt  int    // its index in the sleep heap; -1 when not in it
	isAwake bool   // in the schedule's awake list
	gone    bool   // passivated
	// Asked to stop and not answered yet, and whether the pipeline sent it
	// something meanwhile (source_passivate.go).
	passivating, disturbed bool
}

// keyRef is a window actor as the pipeline sees it. Its keyID is held as two fields,
// so the flags fill the word the window definition's index leaves: a gateway has one
// per key.
type keyRef struct {
	key     string
	win     int32
	touched bool
	early   bool // waiting for its window definition's next early firing
	// Passivation (pipeline_key_passivate.go): asked to stop and not answered yet, and
	// whether a record or a binding reached it meanwhile.
	passivating, disturbed bool
	quietAt                uint32 // the activity it reported quiet at
	pid                    *actor.PID
	streams                smallMap[string, struct{}]
	summary                summaryCell // its window actor's oldest and next windows (window_summary.go)
}

func (k *keyRef) id() keyID { return keyID{int(k.win), k.key} }

type keyID struct {
	win int
	key string
}

func newPipeline(e *env, p *plan, inflight *inflight, sources *sourceIndex, sched *sourceSchedule) *pipeline {
	return &pipeline{
		sched:       sched,
		env:         e,
		plan:        p,
		inflight:    inflight,
		sources:     sources,
		log:         e.log.With("device", p.device.ID),
		keys:        map[keyID]*keyRef{},
		passivating: map[string]*sourceHandle{},
		asleep:      map[string]passivated{},
		pending:     pendingRestore{perWin: make([]int, len(p.windows))},
		fedBy:       newFedBy(),
		keyCount:    make([]int, len(p.windows)),
		refused:     commit.NewPending(),
		refusedLog:  burstLog{every: 10_000},
		// Looked up once, not by its label at every tick.
		inflightGauge: e.metrics.Inflight.WithLabelValues(p.device.ID),
	}
}

func (p *pipeline) Receive(ctx actor.Context) {
	p.receive(ctx)
	p.publishWake()
}

func (p *pipeline) receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		p.onStarted(ctx)
	case *actor.Stopping, *actor.Restarting:
		p.pending.drop()
		if p.gatherTimer != nil {
			p.gatherTimer.Stop()
		}
	case *sourceWanted:
		// The router asks only for topics that match a stream.
		ctx.Respond(p.source(ctx, m.topic, p.plan.match(m.topic)))
	case *restoreMore:
		p.onRestoreMore(ctx)
	case *routeRecord:
		p.onRoute(ctx, m)
	case *sourceRestarted:
		for k := range p.fedBy.keys(m.stream) {
			p.bind(ctx, m.stream, k)
		}
	case *MarkWatermark:
		p.onMark(ctx, m)
	case *Tick:
		p.fireEarly(ctx, m.Now) // first, so its results make this tick's flush
		p.passivateKeys(ctx, m.Now)
		p.passivateSources(ctx, m.Now)
		p.forgetStreams(ctx, m.Now)
		p.onTick(ctx, m)
	case *earlyWanted:
		p.onEarlyWanted(m)
	case *FlushNow:
		p.flush(ctx, m.Done)
	case *commitWanted:
		p.onCommitWanted(ctx, m)
	case gathered:
		p.onGathered(ctx)
	case *committed:
		if m.Epoch > p.committed {
			p.committed, p.committedAt = m.Epoch, p.now
		}
		p.commitWanted(ctx)
		p.periodicFlush(ctx, p.now)
	case *commitPending:
		p.committerPending = true
	case *keyQuiet:
		p.onKeyQuiet(m)
	case *keyReady:
		p.onKeyReady(ctx, m)
	case *keyPassivated:
		p.onKeyPassivated(ctx, m)
	case *keyStaying:
		p.onKeyStaying(ctx, m)
	case *sourceQuiet:
		p.onSourceQuiet(m)
	case *sourcePassivated:
		p.onSourcePassivated(ctx, m)
	case *sourceStaying:
		p.onSourceStaying(m)
	case *explainWanted:
		p.onExplainWanted(ctx, m)
	case *summariesWanted:
		ctx.Respond(p.summaries())
	case *feedsWanted:
		ctx.Respond(p.feedsOf(m.topic))
	}
}

// onStarted reads the device's index (its streams' saved states, the names of its
// saved keys) and queues them for restore: replay restores them all at once, a live
// pipeline in chunks between messages (pipeline_restore.go). Either way windows that came due
// while edged was down fire on the first advance.
func (p *pipeline) onStarted(ctx actor.Context) {
	dev := p.plan.device.ID
	p.sources.reset() // a restarted pipeline's sources are new actors
	p.sched.reset()
	deps := p.env.commitDeps()
	p.committer = ctx.Spawn(p.env.props(func() actor.Actor { return commit.NewCommitter(deps, dev) }))
	p.srcDefs = make([]*sourceDef, len(p.plan.streams))
	for i := range p.plan.streams {
		p.srcDefs[i] = &sourceDef{env: p.env, device: dev, plan: &p.plan.streams[i], committer: p.committer, ticked: &p.sourceTicked, uptime: &p.uptime}
	}
	p.winDefs = make([]*windowDef, len(p.plan.windows))
	for i := range p.plan.windows {
		p.winDefs[i] = newWindowDef(p.env, dev, &p.plan.windows[i], p.committer)
	}
	p.pending.began = time.Now()
	ix, err := p.env.store.LoadIndex(dev)
	if err != nil {
		// Without its state the device would count records twice; stop it loudly.
		panic(fmt.Errorf("loading state of device %s: %w", dev, err))
	}
	p.uptime.before = ix.Uptime
	// persist logged each one; what they held starts empty.
	p.env.metrics.Unreadable.WithLabelValues(dev).Add(float64(len(ix.Corrupt)))
	for _, w := range p.plan.windows {
		if saved := ix.WindowDefs[w.cfg.Name]; saved != nil && string(saved) != string(w.def) {
			p.discardWindow(w.cfg.Name, saved, w.def)
		}
	}
	p.queue(ix)
	p.countKeys()
	if p.env.restoreInChunks {
		p.log.Info("read the saved state's index; taking messages while the state is restored",
			"keys", p.pending.keysLeft, "streams", p.pending.streamsLeft, "took", time.Since(p.pending.began).Round(time.Millisecond))
		ctx.Send(ctx.Self(), &restoreMore{})
	} else {
		p.restoreAll(ctx)
	}
	p.resendResults(ctx)
	if p.env.late != nil {
		// Tell the upstream actor where this device's deliveries are to be reported,
		// so a backlog left from before the restart is deleted through the committer.
		ctx.Send(p.env.late, &Enqueued{Queue: outbox.UpstreamQueue(dev), ReplyTo: p.committer})
	}
}

// discardWindow deletes the saved state of a window whose definition changed since
// it was saved: it starts empty, and its old windows must not come back at a later
// start under the new definition.
func (p *pipeline) discardWindow(name string, saved, now []byte) {
	n, err := p.env.store.DeleteWindowState(p.plan.device.ID, name)
	if err != nil {
		// Without the delete the old windows would be restored into the new
		// definition at the next start; stop the device loudly instead.
		panic(fmt.Errorf("deleting the saved state of window %s of device %s: %w", name, p.plan.device.ID, err))
	}
	p.log.Warn("window definition changed since its state was saved; its saved state is deleted and it starts empty",
		"window", name, "saved", string(saved), "now", string(now), "keys_deleted", n)
}

// resendResults has the sink publish again the results that were committed but not
// confirmed published before the last stop. The sink reads them from the store as it
// has room, as it reads live results it left there: a backlog of any size after a long
// broker outage holds no more memory than live results do.
func (p *pipeline) resendResults(ctx actor.Context) {
	ctx.Send(p.env.sink, &resendOutbox{queue: commit.ResultsQueue(p.plan.device.ID), replyTo: p.committer})
}

// onRoute delivers a record to a key the source has no address for, spawning the
// window actor if need be, and gives the source the address.
func (p *pipeline) onRoute(ctx actor.Context, m *routeRecord) {
	id := keyID{m.win, m.rec.Key}
	k := p.savedKey(ctx, id)
	if k == nil && p.env.maxKeys > 0 && p.keyCount[m.win] >= p.env.maxKeys {
		p.refuseKey(m)
		if src := p.sources.get(m.rec.Stream); src != nil {
			ctx.Send(src.pid, &keyBound{id: id, seq: m.seq})
		}
		return
	}
	if k == nil {
		k = p.spawnKey(ctx, id, nil)
		p.keyCount[id.win]++
		p.env.metrics.Keys.WithLabelValues(p.plan.device.ID, p.plan.windows[id.win].cfg.Name).Set(float64(p.keyCount[id.win]))
	}
	if !k.touched {
		k.touched = true
		p.touched = append(p.touched, k)
	}
	k.disturbed = k.passivating
	ctx.Send(k.pid, m.rec)
	p.feed(m.rec.Stream, k)
	if src := p.sources.get(m.rec.Stream); src != nil {
		ctx.Send(src.pid, &keyBound{id: k.id(), pid: k.pid, seq: m.seq})
	}
}

// bind tells a stream's source the address of a window actor it fed before (restored
// state, a restarted source).
func (p *pipeline) bind(ctx actor.Context, stream string, k *keyRef) {
	if was, ok := p.asleep[stream]; ok {
		p.resumeSource(ctx, stream, was) // binds k with the rest of the keys it fed
		return
	}
	if src := p.liveSource(stream); src != nil {
		k.disturbed = k.passivating
		p.disturb(stream)
		ctx.Send(src.pid, &keyBound{id: k.id(), pid: k.pid})
	}
}

func (p *pipeline) onMark(ctx actor.Context, m *MarkWatermark) {
	if m.Stream == "" {
		p.restoreStreams(ctx) // a mark for every stream reaches the saved ones too
		for _, topic := range sortedKeys(p.asleep) {
			p.resumeSource(ctx, topic, p.asleep[topic])
		}
		for topic := range p.passivating {
			p.disturb(topic)
		}
		for _, s := range p.sched.live() {
			ctx.Send(s.pid, m)
		}
		return
	}
	def := p.plan.match(m.Stream)
	if def < 0 {
		p.log.Warn("watermark for a stream no config matches", "stream", m.Stream)
		return
	}
	ctx.Send(p.source(ctx, m.Stream, def).pid, m)
}

func (p *pipeline) onTick(ctx actor.Context, t *Tick) {
	// Sources act only every watermark interval; ticking them more often would cost a
	// message per source per tick for nothing.
	if t.Now >= p.nextSourceTick {
		p.nextSourceTick = t.Now + p.plan.minInterval
		p.sourceTicked.Store(t.Now)
		p.uptime.start(t.Now)
		p.advancing = p.sched.advancing.Load() > 0
		for _, s := range p.sched.due(t.Now) {
			ctx.Send(s.pid, t)
		}
	}
	if p.nextFlush == 0 {
		p.nextFlush = t.Now + p.env.commitEvery
	}
	p.periodicFlush(ctx, t.Now)
	p.inflightGauge.Set(float64(p.inflight.Load()))
}

// flush asks every source with changes, and every window actor the pipeline itself
// sent records to, for their changes (sources pass it on to the window actors they
// touched) and tells the committer how many direct answers make up the epoch. It
// answers every commit wanted so far.
func (p *pipeline) flush(ctx actor.Context, done chan struct{}) {
	p.wanted = wantedCommit{}
	p.lastFull = p.epoch + 1
	p.flushEpoch(ctx, nil, done)
}

// flushEpoch is a flush of the sources of scope's streams, or of every source with
// changes if scope is nil.
func (p *pipeline) flushEpoch(ctx actor.Context, scope map[string]struct{}, done chan struct{}) {
	p.epoch++
	p.committerPending = false
	f := &Flush{Epoch: p.epoch, Scope: scope}
	n := 0
	if scope == nil {
		for _, s := range p.sched.flushAll() {
			ctx.Send(s.pid, f)
			n++
		}
	} else {
		// Live only, where the order of sends to different actors means nothing.
		for topic := range scope {
			if s := p.sources.get(topic); s != nil && p.sched.flushOne(s) {
				ctx.Send(s.pid, f)
				n++
			}
		}
	}
	// A window actor the pipeline routed records to is asked if one of its streams
	// is, for those records are in its source's state.
	kept := p.touched[:0]
	for _, k := range p.touched {
		if scope != nil && !k.fedFrom(scope) {
			kept = append(kept, k)
			continue
		}
		k.touched = false
		ctx.Send(k.pid, f)
		n++
	}
	clear(p.touched[len(kept):])
	p.touched = kept
	n += p.ahead
	p.ahead = 0
	if scope == nil {
		if units := p.refused.Take(); len(units) > 0 {
			ctx.Send(p.committer, &Flushed{Epoch: p.epoch, Units: units})
			n++
		}
	}
	closed := &EpochClosed{Epoch: p.epoch, Expect: n, Full: scope == nil, Done: done, At: p.now}
	if scope == nil {
		closed.Uptime, _ = p.uptime.due(p.sourceTicked.Load(), p.advancing, done != nil)
	}
	ctx.Send(p.committer, closed)
}

// fedFrom reports whether one of the streams that ever fed k is in scope.
func (k *keyRef) fedFrom(scope map[string]struct{}) bool {
	for s := range k.streams.all() {
		if _, ok := scope[s]; ok {
			return true
		}
	}
	return false
}

// feed records that stream fed window actor k, so a restarted source can be told
// again, and says whether that is news.
func (p *pipeline) feed(stream string, k *keyRef) bool {
	if _, ok := k.streams.get(stream); ok {
		return false
	}
	k.streams.set(stream, struct{}{})
	p.fedBy.add(stream, k)
	return true
}

// spawnSource starts the source actor of a concrete topic. restored is used by the
// first incarnation only; one restarted after a panic reloads its state from the store,
// since what it had in memory since the last commit was never acknowledged.
func (p *pipeline) spawnSource(ctx actor.Context, topic string, def int, restored *watermark.GeneratorState) *sourceHandle {
	h := &sourceHandle{}
	return p.startSource(ctx, topic, h, newSource(p.srcDefs[def], topic, h, restored, false), 0)
}

// startSource spawns src, the source of topic with handle h, schedules it at rank
// (0: the next) and introduces it to the window actors its stream fed. h is
// scheduled before the spawn: the source may take a message at once, and marks h
// dirty through h.schedule.
func (p *pipeline) startSource(ctx actor.Context, topic string, h *sourceHandle, src *source, rank uint64) *sourceHandle {
	p.sched.add(h, rank)
	h.pid = p.spawn(ctx, src, "src:"+topic)
	p.sources.add(topic, h)
	for k := range p.fedBy.keys(topic) {
		p.bind(ctx, topic, k)
	}
	return h
}

func (p *pipeline) spawnKey(ctx actor.Context, id keyID, restored *persist.KeyState) *keyRef {
	def := p.winDefs[id.win]
	k := &keyRef{key: id.key, win: int32(id.win)}
	w := newWindow(def, id.key, restored, false)
	w.summary = &k.summary // before the spawn: a replay's actor starts in it
	k.pid = p.spawn(ctx, w, "win:"+def.plan.cfg.Name+":"+id.key)
	p.keys[id] = k
	return k
}

// spawn starts a as a child named after what it handles, so supervision logs say
// which stream or key failed. Every child is spawned with p.props, whose producer
// starts the actor left in p.spawning (a spawn calls it at once); a child restarted
// after a panic makes its successor itself (actor.Reincarnator). A Props and a
// closure per actor would cost a gateway 300 bytes for each of its thousands.
func (p *pipeline) spawn(ctx actor.Context, a actor.Actor, name string) *actor.PID {
	if p.props == nil {
		p.props = p.env.props(func() actor.Actor {
			a := p.spawning
			p.spawning = nil
			return a
		})
	}
	p.spawning = a
	pid, err := ctx.SpawnNamed(p.props, name)
	if err != nil {
		p.log.Warn("actor name taken; spawning unnamed", "name", name, "err", err)
		p.spawning = a
		return ctx.Spawn(p.props)
	}
	return pid
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
