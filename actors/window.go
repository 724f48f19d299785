package actors

import (
	"bytes"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// window is the actor of one window definition and one key. Its valve combines the
// watermarks of the streams that fed it, so a silent or skewed sensor holds back only
// the keys it feeds.
type window struct {
	*windowDef
	key string

	// The operator and valve by value: two allocations fewer per key.
	op    windows.Operator
	valve watermark.Valve
	sc    *windowScratch // while it handles a message, else nil: see scratch

	dirty smallMap[windows.Window, bool] // true: write, false: delete
	// int32s side by side, in one word: a gateway has a window actor per key.
	open      int32        // windows holding state, as counted in openGauge
	stateSize int32        // bytes of the largest window state encoded so far
	gens      []generation // QoS 1 ids applied in flushes not yet committed, oldest first
	pending   pendingUnits
	restored  *persist.KeyState
	feeders   []string // streams that sent records or watermarks since the last flush

	// Where it publishes its oldest and next windows (window_summary.go); nil
	// outside a pipeline.
	summary *summaryCell

	// Passivation (window_passivate.go): the commit count of the last flush that
	// took units and the count it saw then, the records and early firings taken, the
	// unbound answers received, and the pipeline's request while it waits for them.
	flushCommits *atomic.Uint32
	flushSeen    uint32
	activity     uint32
	unbound      int32
	passivating  *passivate

	// The flags together, packed in one word: a gateway has a window actor per key.
	valveDirty  bool
	joined      bool // a stream fed the key for the first time since the last flush
	fired       bool // a window fired or was purged since the valve was saved
	defSaved    bool
	earlyAsked  bool // an earlyWanted is out and its fireEarly has not come
	resulted    bool // a result waits for the next flush
	commitAsked bool // a commitWanted is out and the flush has not come
	reload      bool
	quietSent   bool // a keyQuiet is out and no record or early firing came since
}

// windowDef is what the window actors of one definition in one pipeline share: held
// once, not in each of a gateway's thousands of keys.
type windowDef struct {
	env         *env
	device      string
	plan        *windowPlan
	committer   *actor.PID
	firings     prometheus.Counter
	lateUpdates prometheus.Counter
	openGauge   prometheus.Gauge
	tooLate     prometheus.Counter // records too late for every window of theirs
	// The last summaries its keys published, for others to share (window_summary.go).
	recent [sharedSummaries]atomic.Pointer[keySummary]
	turn   atomic.Uint32
}

func newWindowDef(e *env, device string, p *windowPlan, committer *actor.PID) *windowDef {
	m := e.metrics
	return &windowDef{
		env: e, device: device, plan: p, committer: committer,
		firings:     m.Firings.WithLabelValues(device, p.cfg.Name),
		lateUpdates: m.LateUpdates.WithLabelValues(device, p.cfg.Name),
		openGauge:   m.OpenWindows.WithLabelValues(device, p.cfg.Name),
		tooLate:     m.WindowLate.WithLabelValues(device, p.cfg.Name),
	}
}

func newWindow(def *windowDef, key string, restored *persist.KeyState, reload bool) *window {
	return &window{
		windowDef: def, key: key,
		op:       *windows.NewOperator(def.plan.op),
		valve:    *watermark.NewValve(),
		restored: restored,
		reload:   reload,
	}
}

// Reincarnate is the window actor that takes over after a panic: it reloads the
// key's state from the store, since what it had in memory since the last commit was
// never acknowledged.
func (w *window) Reincarnate() actor.Actor {
	n := newWindow(w.windowDef, w.key, nil, true)
	n.summary = w.summary
	return n
}

func (w *window) Receive(ctx actor.Context) {
	w.receive(ctx)
	if w.sc != nil {
		scratches.Put(w.sc)
		w.sc = nil
	}
}

func (w *window) receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		w.onStarted()
	case *actor.Stopped, *actor.Restarting: // a restarted key counts its windows again
		w.openGauge.Sub(float64(w.open))
	case *RecordDecoded:
		w.active()
		w.onRecord(m)
		w.wantEarly(ctx)
		w.wantCommit(ctx)
	case *fireEarly:
		w.active()
		w.earlyAsked = false
		w.op.FireEarly(&w.scratch().out)
		w.drain(m.Now)
		w.wantCommit(ctx)
	case *WatermarkEmitted:
		w.onWatermark(m)
		m.done()
		w.wantCommit(ctx)
	case *Flush:
		w.resulted, w.commitAsked = false, false
		w.onFlush(ctx, m, nil)
	case *Flushed: // a source's reply, standing for its flush
		w.resulted, w.commitAsked = false, false
		w.onFlush(ctx, m.Flush, m)
	case *passivateQuery:
		w.onQuery(ctx, m)
	case *passivate:
		w.onPassivate(ctx, m)
	case *unbound:
		w.onUnbound(ctx)
	case *explainWanted:
		ctx.Respond(&keyExplained{state: w.explained()})
	}
}

func (w *window) onRecord(r *RecordDecoded) {
	if r.Dup {
		if seen, durable := w.applied(r.ID); seen {
			w.env.metrics.Duplicates.WithLabelValues(w.device).Inc()
			if durable {
				r.ack.Done()
				return
			}
			// The broker forgets a message once it is acknowledged: the redelivery's
			// ack waits for the commit of the first copy's effect. That effect is in
			// a unit of this flush or an earlier one, and units commit in order, so
			// the last unit of this flush is durable only after it.
			u := w.pending.Last()
			u.Acks = append(u.Acks, r.ack)
			return
		}
	}
	w.observe(r.Stream, r.Status, r.Arrived)
	sc := w.scratch()
	sc.rec.TS = r.TS
	sc.rec.Values = sc.rec.Values[:0]
	for _, f := range w.plan.fields {
		sc.rec.Values = append(sc.rec.Values, r.Values[f])
	}
	u := w.pending.Unit() // the unit the record's effect, mark and ack commit in
	switch w.op.OnRecord(w.key, sc.rec, &sc.out) {
	case windows.LateOutput:
		if lu := w.late(r); lu != nil {
			u = lu
		}
	case windows.Dropped:
		w.tooLate.Inc()
		w.env.metrics.Dropped.WithLabelValues(w.device, r.Stream, "too_late").Inc()
	}
	w.drain(r.Arrived)
	if r.QoS > 0 {
		u.Marks = append(u.Marks, commit.MarkPut{Window: w.plan.cfg.Name, Key: w.key, ID: r.ID})
		w.remember(r.ID)
	}
	u.Acks = append(u.Acks, r.ack)
	w.maybeCloseUnit()
}

// wantEarly asks the pipeline, once per early firing, for the next one when a
// record changed a window that has not fired yet: the pipeline then ticks only the
// keys that changed, however many are open.
func (w *window) wantEarly(ctx actor.Context) {
	if !w.earlyAsked && w.op.EarlyPending() {
		w.earlyAsked = true
		ctx.Send(ctx.Parent(), &earlyWanted{plan: w.plan, key: w.key})
	}
}

// wantCommit asks the pipeline, once per flush, to commit as soon as it can when
// the key holds a result: it is published only after its commit. The streams that
// fed the key since its last flush are the ones whose sources must flush with it.
func (w *window) wantCommit(ctx actor.Context) {
	if w.resulted && !w.commitAsked && w.env.commitResults {
		w.commitAsked = true
		ctx.Send(ctx.Parent(), &commitWanted{streams: slices.Clone(w.feeders)})
	}
}

func (w *window) onWatermark(m *WatermarkEmitted) {
	w.observe(m.Stream, m.Status, m.At)
	w.maybeCloseUnit()
}

// observe feeds a stream's status to the valve and advances the operator when the
// combined watermark moves.
func (w *window) observe(stream string, st watermark.Status, now int64) {
	if !slices.Contains(w.feeders, stream) {
		w.feeders = append(w.feeders, stream)
	}
	if !w.valve.Has(stream) {
		w.joined = true
	}
	out, changed := w.valve.Update(stream, st)
	if !changed {
		return
	}
	w.valveDirty = true
	if out.Watermark > w.op.Watermark() {
		sc := w.scratch()
		w.op.Advance(out.Watermark, &sc.out)
		// A window that fires with nothing to say (discarding, drained) changes
		// the summary with no result.
		moved := len(sc.out.Updated) > 0
		w.drain(now)
		if moved {
			w.summarize()
		}
	}
}

// late routes a record that missed all its windows where the window config says,
// returning the unit that holds its outbox entry (nil if it went to none).
func (w *window) late(r *RecordDecoded) *unit {
	late := w.scratch().out.Late
	l := late[len(late)-1]
	w.tooLate.Inc()
	w.env.metrics.Late.WithLabelValues(w.device, r.Stream, status.TooLate).Inc()
	return routeLate(w.env, &w.pending, w.plan.cfg, w.lateRecord(r, &l))
}

func (w *window) lateRecord(r *RecordDecoded, l *windows.Late) *lateRecord {
	return &lateRecord{
		Device: w.device, Stream: r.Stream, Window: w.plan.cfg.Name, Key: w.key,
		TS: r.TS, Watermark: l.Watermark, ReceivedAt: r.Arrived, Missed: l.Missed,
		Reason: status.TooLate, Payload: r.Payload,
	}
}

// drain turns the operator's output into pending changes: results to the outboxes,
// windows to write or delete.
func (w *window) drain(now int64) {
	sc := w.scratch()
	out := &sc.out
	w.fired = w.fired || len(out.Results) > 0 || len(out.Purged) > 0
	w.resulted = w.resulted || len(out.Results) > 0
	for i := range out.Results {
		res := &out.Results[i]
		switch res.Kind {
		case windows.LateUpdate:
			w.lateUpdates.Inc()
		case windows.Retract: // not a firing: the merged session's firing counts
		default:
			w.firings.Inc()
		}
		sc.enc = appendResult(sc.enc[:0], w.device, w.plan.cfg.Name, res, now)
		payload := w.env.produced(bytes.Clone(sc.enc))
		w.pending.Unit().AddOutbox(&w.env.outputs, commit.OutboxPut{
			Queue: commit.ResultsQueue(w.device),
			Entry: outboxEntry{Topic: w.plan.topic.render(w.key), QoS: w.plan.cfg.Output.QoS, Payload: payload},
		})
		if w.plan.cfg.UpstreamResults && w.env.late != nil {
			w.pending.Unit().AddOutbox(&w.env.outputs, commit.OutboxPut{
				Queue: outbox.UpstreamQueue(w.device),
				Entry: outboxEntry{Topic: "results/" + w.plan.cfg.Name, QoS: 1, Payload: payload},
			})
		}
	}
	for _, p := range out.Purged {
		w.dirty.set(p.Window, false)
	}
	for _, u := range out.Updated {
		w.dirty.set(u.Window, true)
	}
	// A window opened, fired or went: the key's oldest or next window may have
	// changed. A record that only adds to a window changes neither.
	if w.countOpen() || len(out.Results) > 0 || len(out.Purged) > 0 {
		w.summarize()
	}
	out.Reset()
}

// countOpen brings openGauge to the windows the operator holds for the key and
// reports whether their number changed.
func (w *window) countOpen() bool {
	n := int32(w.op.Open(w.key))
	if n == w.open {
		return false
	}
	w.openGauge.Add(float64(n - w.open))
	w.open = n
	return true
}

// windowScratch is what a window actor works in while it handles a message: the
// operator's output and the record it applies. It comes from scratches and goes
// back after the message, so an idle key, most of a gateway's, holds none.
type windowScratch struct {
	out windows.Output
	rec windows.Record
	// enc is where a result is encoded before it is copied out at its size: encoded
	// in place, a payload would keep the spare room its growth left, up to half of
	// it, for as long as its outbox entry lives, which adds up when thousands of
	// windows fire at once.
	enc []byte
}

var scratches = sync.Pool{New: func() any { return new(windowScratch) }}

// scratch returns the actor's scratch for the message it handles.
func (w *window) scratch() *windowScratch {
	if w.sc == nil {
		w.sc = scratches.Get().(*windowScratch)
	}
	return w.sc
}
