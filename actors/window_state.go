package actors

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// A window actor's state in the store: restoring it, flushing what changed, and
// recognising redelivered messages it already applied.

// onStarted restores the key's windows and valve. A window whose saved state does not
// decode is quarantined (logged, counted, left in the store) rather than crashing the key.
func (w *window) onStarted() {
	ks := w.restored
	w.restored = nil
	if w.reload {
		ks = w.loadSaved()
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
	}
	w.countOpen()
	w.valve.Restore(ks.Valve)
	// The saved operator watermark, not the valve's rebuilt output, which can come back
	// lower for a key fed by several streams: a lower one would let a record re-create
	// a window that was already purged.
	if ks.Watermark != watermark.Min {
		w.op.SetWatermark(ks.Watermark)
	}
	w.summarize()
}

func (w *window) loadSaved() *persist.KeyState {
	ks, _, err := w.env.store.LoadKeys(w.device, []persist.KeyName{{Window: w.plan.cfg.Name, Key: w.key}})
	if err != nil {
		panic(err)
	}
	return ks[0]
}

// generation is the QoS 1 ids applied between two flushes, kept until the flush's
// units are committed: until then a redelivery must be recognised from memory.
//
// The ids are a list, not a set: only a redelivery looks them up, and an idle key
// keeps its last generation until its next flush.
type generation struct {
	ids     []uint64
	commits *atomic.Uint32 // the commit count of a unit of the flush that took them; nil while it is still to come
	seen    uint32         // *commits when the flush took them
}

// durable reports whether the flush that took the ids is committed. Its unit may be
// in use again by then (see commit's reply pool), but only after that commit, and its
// count only grows.
func (g *generation) durable() bool { return g.commits != nil && g.commits.Load() != g.seen }

func (w *window) remember(id uint64) {
	if n := len(w.gens); n == 0 || w.gens[n-1].commits != nil {
		if n < cap(w.gens) {
			w.gens = w.gens[:n+1] // a settled generation's emptied ids (settleGenerations)
		} else {
			w.gens = append(w.gens, generation{})
		}
	}
	g := &w.gens[len(w.gens)-1]
	g.ids = append(g.ids, id)
}

// maxSpareIDs bounds the ids a settled generation leaves for the next one to reuse:
// a flood's generation would otherwise keep its array with the key for good.
const maxSpareIDs = 64

// applied reports whether a redelivered message was already applied, and whether that
// effect is durable yet: a broker reconnect redelivers what edged has not acknowledged,
// committed or not, so an id is looked up in memory while its commit is pending, then
// in the store.
func (w *window) applied(id uint64) (seen, durable bool) {
	for _, g := range w.gens {
		if slices.Contains(g.ids, id) {
			return true, g.durable()
		}
	}
	seen, err := w.env.store.HasMark(w.device, w.plan.cfg.Name, w.key, id)
	return err == nil && seen, true
}

func (w *window) onFlush(ctx actor.Context, m *Flush, carried *Flushed) {
	w.saveState()
	f := w.pending.Flushed(m.Epoch, 0)
	w.settleGenerations(f.Units)
	w.flushedUnits(f.Units)
	merge := len(f.Units) > 0 && !w.fedFrom(m.Scope)
	f.Merge = merge
	w.feeders = w.feeders[:0]
	f.Carried = carried
	ctx.Send(w.committer, f)
	if merge {
		ctx.Send(ctx.Parent(), &commitWanted{merged: m.Epoch})
	}
	w.maybeQuiet(ctx)
}

// fedFrom reports whether every stream that fed the key since its last flush is in
// scope (nil: all of them). See pipeline_commit_soon.go.
func (w *window) fedFrom(scope map[string]struct{}) bool {
	if scope == nil {
		return true
	}
	for _, s := range w.feeders {
		if _, ok := scope[s]; !ok {
			return false
		}
	}
	return true
}

// maybeCloseUnit closes the main unit once it, with the windows still to be written,
// reaches a unit's bounds: the key's state as of now goes into it, so it holds a
// consistent step (see commit.Unit.Full).
func (w *window) maybeCloseUnit() {
	if w.pending.MainFull(w.dirty.len(), w.dirty.len()*int(w.stateSize)) {
		w.saveState()
		w.pending.CloseMain()
	}
}

// saveState writes what changed in the key's windows and valve into the main unit.
func (w *window) saveState() {
	u := w.pending.Unit()
	name := w.plan.cfg.Name
	// Deletes go first: a session window merged into one with the same start is
	// deleted and rewritten under the same key.
	for win, put := range w.dirty.all() {
		if !put {
			u.Deletes = append(u.Deletes, persist.WindowKey{Device: w.device, Window: name, Key: w.key, Start: win.Start})
		}
	}
	for win, put := range w.dirty.all() {
		if !put {
			continue
		}
		state, ok := appendWindowState(u, &w.op, w.key, win, int(w.stateSize))
		if ok {
			w.stateSize = max(w.stateSize, int32(len(state)))
			u.Puts = append(u.Puts, commit.WindowPut{Key: persist.WindowKey{Device: w.device, Window: name, Key: w.key, Start: win.Start}, State: state})
			u.Bytes += len(state)
		}
	}
	w.dirty.clear()
	if len(u.Puts) > 0 && !w.defSaved {
		u.Def = &commit.DefPut{Device: w.device, Window: name, Def: w.plan.def}
		w.defSaved = true
	}
	// The valve (and with it the operator's watermark) is saved with the firings and
	// purges it caused: a restart then judges lateness against a watermark at least as
	// high as the one behind what the store holds. Saving it on every advance would
	// add a write per key and flush.
	if w.valveDirty && (w.fired || w.joined) {
		u.Valve = &commit.ValvePut{Device: w.device, Window: name, Key: w.key, Watermark: w.op.Watermark(), Inputs: w.valve.State()}
		w.valveDirty, w.joined, w.fired = false, false, false
	}
}

// settleGenerations ties the ids applied since the last flush to this flush's units
// (committed together) and forgets generations whose units are durable.
func (w *window) settleGenerations(units []*unit) {
	if n := len(w.gens); n > 0 && w.gens[n-1].commits == nil && len(units) > 0 {
		u := units[0]
		if u.Commits == nil {
			u.Commits = new(atomic.Uint32) // before the send: the committer adds to it
		}
		w.gens[n-1].commits, w.gens[n-1].seen = u.Commits, u.Commits.Load()
	}
	// A durable generation leaves, its emptied ids moved past the end for the next one:
	// a QoS 1 key starts a generation every flush, and each would allocate anew.
	for len(w.gens) > 0 && w.gens[0].durable() {
		spare := generation{}
		if ids := w.gens[0].ids; cap(ids) <= maxSpareIDs {
			spare.ids = ids[:0]
		}
		n := copy(w.gens, w.gens[1:])
		w.gens[n] = spare
		w.gens = w.gens[:n]
	}
}

// A saved window is its end (the store keys it by start) followed by the operator's
// own versioned encoding.

// appendWindowState encodes a saved window into u's slab and returns it, or false
// if the operator no longer holds the window. The batch copies states in, so
// the slab lives as long as the unit. sizeHint is the largest state seen so far, so
// the slab usually grows at most once.
func appendWindowState(u *unit, op *windows.Operator, key string, win windows.Window, sizeHint int) ([]byte, bool) {
	start := len(u.Slab)
	b := slices.Grow(u.Slab, max(sizeHint, 64))
	b, ok := op.AppendState(binary.AppendVarint(b, win.End), key, win)
	if !ok {
		return nil, false
	}
	// A slab that grew leaves the states cut before in the old array, which they keep.
	u.Slab = b
	return b[start:len(b):len(b)], true
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
