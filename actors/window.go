package actors

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// window is the actor of one window definition and one key. Its valve combines the
// watermarks of the streams that fed it, so a silent or skewed sensor holds back only
// the keys it feeds.
type window struct {
	env       *env
	device    string
	plan      *windowPlan
	key       string
	committer *actor.PID
	topic     string // rendered output topic; "" publishes nothing locally

	op    *windows.Operator
	valve *watermark.Valve
	out   windows.Output
	rec   windows.Record

	dirty      map[windows.Window]bool // true: write, false: delete
	open       map[int64]struct{}      // starts of the windows holding state
	valveDirty bool
	joined     bool                // a stream fed the key for the first time since the last flush
	fired      bool                // a window fired or was purged since the valve was saved
	gens       []generation        // QoS 1 ids applied in flushes not yet committed, oldest first
	inputs     map[string]struct{} // streams that fed the key
	defSaved   bool
	stateSize  int // bytes of the largest window state encoded so far
	pending    pendingUnits
	restored   *persist.KeyState
	reload     bool

	firings     prometheus.Counter
	lateUpdates prometheus.Counter
	openGauge   prometheus.Gauge
}

func newWindow(e *env, device string, p *windowPlan, key string, committer *actor.PID, restored *persist.KeyState, reload bool) *window {
	m := e.metrics
	return &window{
		env: e, device: device, plan: p, key: key, committer: committer,
		topic:       renderTopic(p.cfg.Output.Topic, device, p.cfg.Name, key),
		op:          windows.NewOperator(p.op),
		valve:       watermark.NewValve(),
		rec:         windows.Record{Values: make([]windows.Value, len(p.fields))},
		dirty:       map[windows.Window]bool{},
		open:        map[int64]struct{}{},
		inputs:      map[string]struct{}{},
		pending:     pendingUnits{main: &unit{}},
		restored:    restored,
		reload:      reload,
		firings:     m.Firings.WithLabelValues(device, p.cfg.Name),
		lateUpdates: m.LateUpdates.WithLabelValues(device, p.cfg.Name),
		openGauge:   m.OpenWindows.WithLabelValues(device, p.cfg.Name),
	}
}

func renderTopic(tmpl, device, window, key string) string {
	return strings.NewReplacer("{device}", device, "{window}", window, "{key}", key).Replace(tmpl)
}

func (w *window) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		w.onStarted()
	case *actor.Stopped:
		w.openGauge.Sub(float64(len(w.open)))
	case *RecordDecoded:
		w.onRecord(m)
	case *WatermarkEmitted:
		w.onWatermark(m)
	case *Flush:
		w.onFlush(ctx, m.Epoch)
	}
}

// onStarted restores the key's windows and valve. A window whose saved state does not
// decode is quarantined (logged, counted, left in the store) rather than crashing the key.
func (w *window) onStarted() {
	ks := w.restored
	w.restored = nil
	if w.reload {
		ks = w.loadSaved()
		w.openGauge.Sub(float64(len(w.open)))
		clear(w.open)
	}
	if ks == nil {
		return
	}
	w.defSaved = true
	for _, saved := range ks.Windows {
		win, state, err := DecodeSavedWindow(saved)
		if err == nil {
			err = w.op.Restore(w.key, win, state)
		}
		if err != nil {
			w.env.metrics.Quarantined.WithLabelValues(w.device, w.plan.cfg.Name).Inc()
			w.env.log.Error("quarantined a saved window that does not decode",
				"device", w.device, "window", w.plan.cfg.Name, "key", w.key, "start", saved.Start, "err", err)
			continue
		}
		w.open[win.Start] = struct{}{}
	}
	w.openGauge.Add(float64(len(w.open)))
	w.valve.Restore(ks.Valve)
	for _, in := range ks.Valve {
		w.inputs[in.Input] = struct{}{}
	}
	// The saved operator watermark, not the valve's rebuilt output, which can come back
	// lower for a key fed by several streams: a lower one would let a record re-create
	// a window that was already purged.
	if ks.Watermark != watermark.Min {
		w.op.SetWatermark(ks.Watermark)
	}
}

func (w *window) loadSaved() *persist.KeyState {
	st, err := w.env.store.LoadDevice(w.device)
	if err != nil {
		panic(err)
	}
	for i := range st.Keys {
		if ks := &st.Keys[i]; ks.Window == w.plan.cfg.Name && ks.Key == w.key {
			return ks
		}
	}
	return nil
}

func (w *window) onRecord(r *RecordDecoded) {
	if r.Dup && w.applied(r.ID) {
		w.env.metrics.Duplicates.WithLabelValues(w.device).Inc()
		r.ack.done()
		return
	}
	w.observe(r.Stream, r.Status, r.Arrived)
	w.rec.TS = r.TS
	for i, f := range w.plan.fields {
		w.rec.Values[i] = r.Values[f]
	}
	u := w.pending.main // the unit the record's effect, mark and ack commit in
	switch w.op.OnRecord(w.key, w.rec, &w.out) {
	case windows.LateOutput:
		if lu := w.late(r); lu != nil {
			u = lu
		}
	case windows.Dropped:
		w.env.metrics.Dropped.WithLabelValues(w.device, r.Stream, "too_late").Inc()
	}
	w.drain(r.Arrived)
	if r.QoS > 0 {
		u.marks = append(u.marks, markPut{window: w.plan.cfg.Name, key: w.key, id: r.ID})
		w.remember(r.ID)
	}
	u.acks = append(u.acks, r.ack)
}

// generation is the QoS 1 ids applied between two flushes, kept until the flush's
// units are committed: until then a redelivery must be recognised from memory.
type generation struct {
	ids map[uint64]struct{}
	u   *unit // a unit of the flush that took them; nil while it is still to come
}

func (w *window) remember(id uint64) {
	if n := len(w.gens); n == 0 || w.gens[n-1].u != nil {
		w.gens = append(w.gens, generation{ids: map[uint64]struct{}{}})
	}
	w.gens[len(w.gens)-1].ids[id] = struct{}{}
}

// applied reports whether a redelivered message was already applied: in memory while
// its commit is pending (a broker reconnect redelivers what edged has not
// acknowledged yet, committed or not), or in the store.
func (w *window) applied(id uint64) bool {
	for _, g := range w.gens {
		if _, ok := g.ids[id]; ok {
			return true
		}
	}
	seen, err := w.env.store.HasMark(w.device, w.plan.cfg.Name, w.key, id)
	return err == nil && seen
}

func (w *window) onWatermark(m *WatermarkEmitted) {
	w.observe(m.Stream, m.Status, m.At)
}

// observe feeds a stream's status to the valve and advances the operator when the
// combined watermark moves.
func (w *window) observe(stream string, st watermark.Status, now int64) {
	if _, ok := w.inputs[stream]; !ok {
		w.inputs[stream] = struct{}{}
		w.joined = true
	}
	out, changed := w.valve.Update(stream, st)
	if !changed {
		return
	}
	w.valveDirty = true
	if out.Watermark > w.op.Watermark() {
		w.op.Advance(out.Watermark, &w.out)
		w.drain(now)
	}
}

// late routes a record that missed all its windows where the window config says,
// returning the unit that holds its outbox entry (nil if it went to none).
func (w *window) late(r *RecordDecoded) *unit {
	l := w.out.Late[len(w.out.Late)-1]
	w.env.metrics.Late.WithLabelValues(w.device, r.Stream, reasonTooLate).Inc()
	dest := w.plan.cfg.Late
	switch {
	case dest == "drop":
		return nil
	case strings.HasPrefix(dest, "topic:"):
		u := w.pending.spillUnit()
		u.outbox = append(u.outbox, outboxPut{
			queue: resultsQueue(w.device),
			entry: outboxEntry{Topic: strings.TrimPrefix(dest, "topic:"), QoS: w.plan.cfg.Output.QoS, Payload: appendLate(nil, w.lateRecord(r, &l))},
		})
		return u
	case w.env.late == nil:
		w.env.metrics.UnshippedLate.WithLabelValues(w.device).Inc()
		w.env.log.Info("late record (no upstream configured)", "device", w.device, "window", w.plan.cfg.Name,
			"key", w.key, "ts", r.TS, "watermark", l.Watermark)
		return nil
	default:
		u := w.pending.spillUnit()
		u.outbox = append(u.outbox, outboxPut{
			queue: upstreamQueue(w.device),
			entry: outboxEntry{Topic: "late/" + r.Stream, QoS: 1, Payload: appendLate(nil, w.lateRecord(r, &l))},
		})
		return u
	}
}

func (w *window) lateRecord(r *RecordDecoded, l *windows.Late) *lateRecord {
	return &lateRecord{
		Device: w.device, Stream: r.Stream, Window: w.plan.cfg.Name, Key: w.key,
		TS: r.TS, Watermark: l.Watermark, ReceivedAt: r.Arrived, Missed: l.Missed,
		Reason: reasonTooLate, Payload: r.Payload,
	}
}

// drain turns the operator's output into pending changes: results to the outboxes,
// windows to write or delete.
func (w *window) drain(now int64) {
	w.fired = w.fired || len(w.out.Results) > 0 || len(w.out.Purged) > 0
	for i := range w.out.Results {
		res := &w.out.Results[i]
		if res.Kind == windows.LateUpdate {
			w.lateUpdates.Inc()
		} else {
			w.firings.Inc()
		}
		payload := appendResult(nil, w.device, w.plan.cfg.Name, res, now)
		w.pending.main.outbox = append(w.pending.main.outbox, outboxPut{
			queue: resultsQueue(w.device),
			entry: outboxEntry{Topic: w.topic, QoS: w.plan.cfg.Output.QoS, Payload: payload},
		})
		if w.plan.cfg.UpstreamResults && w.env.late != nil {
			w.pending.main.outbox = append(w.pending.main.outbox, outboxPut{
				queue: upstreamQueue(w.device),
				entry: outboxEntry{Topic: "results/" + w.plan.cfg.Name, QoS: 1, Payload: payload},
			})
		}
	}
	for _, p := range w.out.Purged {
		w.dirty[p.Window] = false
		if _, ok := w.open[p.Window.Start]; ok {
			delete(w.open, p.Window.Start)
			w.openGauge.Dec()
		}
	}
	for _, u := range w.out.Updated {
		w.dirty[u.Window] = true
		if _, ok := w.open[u.Window.Start]; !ok {
			w.open[u.Window.Start] = struct{}{}
			w.openGauge.Inc()
		}
	}
	w.out.Reset()
}

func (w *window) onFlush(ctx actor.Context, epoch uint64) {
	u := w.pending.main
	name := w.plan.cfg.Name
	// Deletes go first: a session window merged into one with the same start is
	// deleted and rewritten under the same key.
	for win, put := range w.dirty {
		if !put {
			u.deletes = append(u.deletes, persist.WindowKey{Device: w.device, Window: name, Key: w.key, Start: win.Start})
		}
	}
	for win, put := range w.dirty {
		if !put {
			continue
		}
		state, ok := w.op.AppendState(encodeWindowEnd(win, w.stateSize), w.key, win)
		if ok {
			w.stateSize = max(w.stateSize, len(state))
			u.puts = append(u.puts, windowPut{key: persist.WindowKey{Device: w.device, Window: name, Key: w.key, Start: win.Start}, state: state})
		}
	}
	clear(w.dirty)
	if len(u.puts) > 0 && !w.defSaved {
		u.def = &defPut{device: w.device, window: name, def: w.plan.def}
		w.defSaved = true
	}
	// The valve (and with it the operator's watermark) is saved with the firings and
	// purges it caused: a restart then judges lateness against a watermark at least as
	// high as the one behind what the store holds. Saving it on every advance would
	// add a write per key and flush.
	if w.valveDirty && (w.fired || w.joined) {
		u.valve = &valvePut{device: w.device, window: name, key: w.key, watermark: w.op.Watermark(), inputs: w.valve.State()}
		w.valveDirty, w.joined, w.fired = false, false, false
	}
	units := w.pending.take()
	w.settleGenerations(units)
	ctx.Send(w.committer, &Flushed{Epoch: epoch, Units: units})
}

// settleGenerations ties the ids applied since the last flush to this flush's units
// (committed together) and forgets generations whose units are durable.
func (w *window) settleGenerations(units []*unit) {
	if n := len(w.gens); n > 0 && w.gens[n-1].u == nil && len(units) > 0 {
		w.gens[n-1].u = units[0]
	}
	for len(w.gens) > 0 && w.gens[0].u != nil && w.gens[0].u.committed.Load() {
		w.gens = w.gens[1:]
	}
}

// A saved window is its end (the store keys it by start) followed by the operator's
// own versioned encoding.
// sizeHint is the largest state seen so far, so one allocation usually holds it.
func encodeWindowEnd(win windows.Window, sizeHint int) []byte {
	return binary.AppendVarint(make([]byte, 0, max(sizeHint, 64)), win.End)
}

// DecodeSavedWindow splits a saved window into the window and the operator's
// encoding of its state (for windows.Operator.Restore).
func DecodeSavedWindow(s persist.WindowState) (windows.Window, []byte, error) {
	end, n := binary.Varint(s.State)
	if n <= 0 || end <= s.Start {
		return windows.Window{}, nil, fmt.Errorf("saved window at %d: bad end", s.Start)
	}
	return windows.Window{Start: s.Start, End: end}, s.State[n:], nil
}
