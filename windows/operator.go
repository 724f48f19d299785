package windows

import (
	"slices"

	"github.com/edged/edged/watermark"
)

// OperatorConfig configures an Operator.
type OperatorConfig struct {
	Assigner        Assigner
	AllowedLateness int64 // ms a window's state outlives its end for late updates
	Aggregates      *Aggregates
	// Discarding empties a window's accumulator at every firing (Flink's
	// PurgingTrigger over the event-time trigger): each result carries only
	// what arrived since the window's previous firing. The window itself
	// stays until cleanup, so a late record re-fires it with only itself,
	// and a merge absorbs what the sessions hold, retracting nothing.
	Discarding bool
	// Early is the processing-time interval (ms) of early firings; 0: none.
	// The operator only tracks which windows changed since they last
	// emitted; the caller calls FireEarly every Early ms.
	Early int64
}

// Operator is Flink's event-time WindowOperator for many keys. It keeps each
// live window's accumulator and one timer per window in a queue ordered by
// time across keys, so a watermark advance costs in proportion to the
// windows due, not to the number of keys. It is not safe for concurrent use.
type Operator struct {
	asg      Assigner
	lateness int64
	discard  bool
	early    bool
	aggs     *Aggregates
	wm       int64
	keys     keyStates
	timers   timerQueue
	seq      int64      // arrival number of the next applied record
	changed  []earlyRef // windows that changed since they last emitted, for FireEarly
}

type keyState struct {
	key  string
	wins []*windowState // ascending by start; starts are distinct
	// tombs: lost session starts a late reading could still revive
	// (tombs.go), ascending by start; no live window has a tomb's start.
	// Behind a pointer, nil for none, as most keys have none: a gateway
	// holds a keyState per key, and a slice would take it to the next size
	// class.
	tombs *[]tomb
}

// windowState is one live window. A gateway holds one per key and window
// definition, so its fields are packed into 112 bytes, a size class of the
// allocator: an int32 revision counter beside the flags, and no timer field
// (timerOf derives it).
type windowState struct {
	w Window
	// fires counts the window's firings so far: the next result's revision.
	fires int32
	// fired: the watermark passed End-1 and the window fired for it; its
	// timer is then the cleanup time, else End-1.
	fired bool
	// emitted: some result went out under the window's current start, so a
	// merge that moves the start must retract it. A merged session counts
	// revisions on from the windows it absorbed (fires > 0) yet may not
	// have emitted under its own start yet.
	emitted bool
	// early: the window is on Operator.changed.
	early bool
	// drained: discarding, the window fired and nothing arrived since, so
	// its on-time firing would be empty and is skipped (as in Flink, which
	// emits nothing for a purged window's empty state).
	drained bool
	// reach: sessions only, the lowest start late readings may move the
	// window's start back to (tombs.go).
	reach int64
	// revived: the tomb of the lost session whose start this one took,
	// until it emits under it, with a revision past that session's rows; a
	// merge that moves the start first buries it again, since the lost
	// session's row still stands.
	revived *tomb
	acc     accumulator
}

// NewOperator returns an operator whose watermark is watermark.Min.
func NewOperator(cfg OperatorConfig) *Operator {
	return &Operator{
		asg:      cfg.Assigner,
		lateness: max(cfg.AllowedLateness, 0),
		discard:  cfg.Discarding,
		early:    cfg.Early > 0,
		aggs:     cfg.Aggregates,
		wm:       watermark.Min,
	}
}

// Watermark returns the operator's current watermark.
func (o *Operator) Watermark() int64 { return o.wm }

// SetWatermark sets the watermark without firing anything, for restoring
// state; the next Advance fires what is due.
func (o *Operator) SetWatermark(wm int64) { o.wm = wm }

// OnRecord assigns r to its windows. Windows past cleanup are skipped; if
// all are, the record goes to out.Late when ts+lateness <= watermark and is
// dropped (counted in out.Dropped) otherwise. A window that already fired
// fires again at once, as a LateUpdate with the next revision.
func (o *Operator) OnRecord(key string, r Record, out *Output) Verdict {
	out.assigned = o.asg.Assign(r.TS, out.assigned[:0])
	if o.asg.Merging() {
		return o.onSessionRecord(key, &r, out)
	}
	var ks *keyState
	applied := false
	for _, w := range out.assigned {
		if w.cleanupTime(o.lateness) <= o.wm {
			continue
		}
		if ks == nil {
			ks = o.keyState(key)
		}
		ws := ks.find(w)
		if ws == nil {
			ws = o.newWindow(ks, w, o.aggs.newAccumulator())
		}
		ws.acc.add(o.aggs, &r, o.seq)
		ws.drained = false
		applied = true
		if ws.fired {
			o.fire(ks.key, ws, LateUpdate, out)
		} else if o.early && !ws.early {
			o.markChanged(ks.key, ws)
		}
		out.markUpdated(ks.key, w)
	}
	if !applied {
		return o.reject(key, r.TS, out)
	}
	o.seq++
	return Applied
}

func (o *Operator) reject(key string, ts int64, out *Output) Verdict {
	if watermark.AddSat(ts, o.lateness) <= o.wm {
		out.Late = append(out.Late, Late{Key: key, TS: ts, Watermark: o.wm, Missed: slices.Clone(out.assigned)})
		return LateOutput
	}
	out.Dropped++
	return Dropped
}

// newWindow adds a window with the given accumulator. A window whose end the
// watermark already passed counts as fired: the caller fires it as a late
// update once the record is in.
func (o *Operator) newWindow(ks *keyState, w Window, acc accumulator) *windowState {
	ws := &windowState{w: w, acc: acc}
	ks.insert(ws)
	o.schedule(ks.key, ws)
	return ws
}

// schedule sets the window's timer from its fired flag and the watermark.
func (o *Operator) schedule(key string, ws *windowState) {
	ws.fired = ws.fired || ws.w.MaxTimestamp() <= o.wm
	o.timers.push(timer{time: o.timerOf(ws), key: key, window: ws.w})
}

// timerOf is the time of the window's one pending timer: its cleanup once it
// fired, else its firing at End-1.
func (o *Operator) timerOf(ws *windowState) int64 {
	if ws.fired {
		return ws.w.cleanupTime(o.lateness)
	}
	return ws.w.MaxTimestamp()
}

func (o *Operator) fire(key string, ws *windowState, kind Kind, out *Output) {
	if ws.revived != nil {
		ws.fires = max(ws.fires, ws.revived.next)
		ws.revived = nil
	}
	out.Results = append(out.Results, Result{
		Key:       key,
		Window:    ws.w,
		Revision:  int(ws.fires),
		Kind:      kind,
		Watermark: o.wm,
		Values:    ws.acc.results(o.aggs, make([]NamedValue, 0, len(o.aggs.aggs))),
	})
	ws.fires++
	ws.emitted = true
	if o.discard {
		ws.acc = o.aggs.newAccumulator()
		ws.drained = true
	}
}

// Advance moves the watermark to wm (ignored unless it moves forward), fires
// every window with End-1 <= wm in order of end, then key, then start, and
// purges every window whose cleanup time End-1+lateness <= wm, after its
// firing if it had not fired yet.
func (o *Operator) Advance(wm int64, out *Output) {
	if wm <= o.wm {
		return
	}
	o.wm = wm
	for len(o.timers) > 0 && o.timers.peek().time <= wm {
		t := o.timers.pop()
		ks := o.keys.get(t.key)
		if ks == nil {
			continue
		}
		ws := ks.find(t.window)
		if ws == nil || ws.w != t.window || o.timerOf(ws) != t.time {
			if ws == nil && o.buryTimer(ks, &t) {
				o.pruneTombs(ks, out)
				o.forgetIfEmpty(ks)
			}
			continue // else stale: merged away, purged or rescheduled
		}
		if !ws.fired {
			ws.fired = true
			if !ws.drained {
				o.fire(ks.key, ws, OnTime, out)
			}
			if c := ws.w.cleanupTime(o.lateness); c > wm {
				o.timers.push(timer{time: c, key: ks.key, window: ws.w})
				out.markUpdated(ks.key, ws.w)
				continue
			}
		}
		o.purge(ks, ws, out)
	}
}

// purge drops a window at its cleanup time. A session leaves a tomb of its
// start, and the tombs it covered may go with it.
func (o *Operator) purge(ks *keyState, ws *windowState, out *Output) {
	ks.remove(ws)
	out.Purged = append(out.Purged, Ref{Key: ks.key, Window: ws.w})
	if o.asg.Merging() {
		if ws.emitted {
			o.bury(ks, ws.w, ws.fires, out)
		}
		o.pruneTombs(ks, out)
	}
	o.forgetIfEmpty(ks)
}

// forgetIfEmpty drops the state of a key that holds no window and no tomb.
func (o *Operator) forgetIfEmpty(ks *keyState) {
	if len(ks.wins) == 0 && ks.tombs == nil {
		o.keys.remove(ks.key)
	}
}

func (o *Operator) keyState(key string) *keyState {
	ks := o.keys.get(key)
	if ks == nil {
		ks = &keyState{key: key}
		o.keys.add(ks)
	}
	return ks
}

// Open returns how many windows of key hold state.
func (o *Operator) Open(key string) int {
	if ks := o.keys.get(key); ks != nil {
		return len(ks.wins)
	}
	return 0
}

// Windows returns the live windows of key, ascending by start.
func (o *Operator) Windows(key string) []Window {
	ks := o.keys.get(key)
	if ks == nil {
		return nil
	}
	out := make([]Window, len(ks.wins))
	for i, ws := range ks.wins {
		out[i] = ws.w
	}
	return out
}

// search returns the position of the first window starting at or after start.
func (ks *keyState) search(start int64) int {
	// Records mostly land in the newest window: check it first.
	n := len(ks.wins)
	if n > 0 && ks.wins[n-1].w.Start <= start {
		if ks.wins[n-1].w.Start == start {
			return n - 1
		}
		return n
	}
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ks.wins[m].w.Start < start {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// find returns the live window with w's start (and, for non-merging
// assigners, therefore w itself), or nil.
func (ks *keyState) find(w Window) *windowState {
	i := ks.search(w.Start)
	if i < len(ks.wins) && ks.wins[i].w.Start == w.Start {
		return ks.wins[i]
	}
	return nil
}

func (ks *keyState) insert(ws *windowState) {
	ks.wins = slices.Insert(ks.wins, ks.search(ws.w.Start), ws)
}

func (ks *keyState) remove(ws *windowState) {
	i := ks.search(ws.w.Start)
	if i < len(ks.wins) && ks.wins[i] == ws {
		ks.wins = slices.Delete(ks.wins, i, i+1)
	}
}
