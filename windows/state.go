package windows

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// stateVersion is the first byte of a window's persisted state.
const stateVersion = 1

// Flags of the persisted state. flagSilent is set for a window that counts
// revisions (fires > 0) but emitted nothing under its current start (a
// merged session before its first firing); state written before the flag
// existed lacks it, so such windows are taken to have emitted, and at worst
// retract a row a consumer never saw.
// flagDrained is windowState.drained: a discarding window emptied by a firing.
const (
	flagFired   = 1
	flagSilent  = 2
	flagDrained = 4
)

// AppendState appends the versioned encoding of one window's state
// (revision counter, flags, accumulator) to dst. It reports false, and
// appends nothing, if the window does not exist (it was purged or merged
// away): the caller then deletes its persisted copy.
func (o *Operator) AppendState(dst []byte, key string, w Window) ([]byte, bool) {
	ks := o.keys.get(key)
	if ks == nil {
		return dst, false
	}
	ws := ks.find(w)
	if ws == nil || ws.w != w {
		return dst, false
	}
	dst = append(dst, stateVersion)
	dst = binary.AppendUvarint(dst, uint64(ws.fires))
	var flags byte
	if ws.fired {
		flags |= flagFired
	}
	if ws.fires > 0 && !ws.emitted {
		flags |= flagSilent
	}
	if ws.drained {
		flags |= flagDrained
	}
	dst = append(dst, flags)
	return ws.acc.appendBinary(o.aggs, dst), true
}

// Restore recreates one window from AppendState's encoding. Call it for
// every persisted window, then SetWatermark, before any OnRecord or Advance.
// Garbage or state written for other aggregates is an error, never a panic.
func (o *Operator) Restore(key string, w Window, state []byte) error {
	if w.End <= w.Start {
		return fmt.Errorf("restoring window %v of key %q: the window is empty", w, key)
	}
	r := reader{b: state}
	if v := r.byte(); r.err == nil && v != stateVersion {
		return fmt.Errorf("restoring window %v of key %q: state version %d is not supported (want %d)", w, key, v, stateVersion)
	}
	fires := r.uvarint()
	flags := r.byte()
	if r.err == nil && (fires > 1<<31 || flags > flagFired|flagSilent|flagDrained) {
		r.fail(fmt.Errorf("revision %d or flags %#x out of range", fires, flags))
	}
	if r.err != nil {
		return fmt.Errorf("restoring window %v of key %q: %w", w, key, r.err)
	}
	acc, err := o.aggs.decodeAccumulator(&r)
	if err == nil && len(r.b) > 0 {
		err = errors.New("trailing bytes after the accumulator")
	}
	if err != nil {
		return fmt.Errorf("restoring window %v of key %q: %w", w, key, err)
	}
	ks := o.keyState(key)
	if ks.find(w) != nil {
		return fmt.Errorf("restoring window %v of key %q: a window with that start is already restored", w, key)
	}
	ws := &windowState{w: w, fires: int(fires), fired: flags&flagFired != 0, emitted: fires > 0 && flags&flagSilent == 0,
		drained: flags&flagDrained != 0, acc: acc}
	ks.insert(ws)
	o.schedule(key, ws)
	o.seq = max(o.seq, acc.maxSeq()+1)
	return nil
}
