package windows

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// stateVersion is the first byte of a window's persisted state.
const stateVersion = 1

// Flags of the persisted state. flagSilent is set for a window that counts
// revisions (fires > 0) but emitted nothing under its current start (a
// merged session before its first firing); state written before the flag
// existed lacks it, so such windows are taken to have emitted, and at worst
// retract a row a consumer never saw.
// flagDrained is windowState.drained: a discarding window emptied by a firing.
// flagReach: a session's reach follows the flags (a varint). A session
// written before reaches existed reads as reaching no further back than its
// start, which is all it knows to have no lost start before it.
// flagTomb: the state is a tomb (tombs.go), the revision its start's next row
// carries and nothing else.
// flagRevived: the session took a lost session's start and has not emitted
// under it yet; that session's end (a varint) and its tomb's next revision
// follow the reach.
const (
	flagFired   = 1
	flagSilent  = 2
	flagDrained = 4
	flagReach   = 8
	flagTomb    = 16
	flagRevived = 32
)

// AppendState appends the versioned encoding of one window's state
// (revision counter, flags, a session's reach, accumulator), or of a tomb
// (Tomb), to dst. It reports false, and appends nothing, if neither exists (the
// window was purged or merged away, the tomb revived or pruned): the caller
// then deletes its persisted copy.
func (o *Operator) AppendState(dst []byte, key string, w Window) ([]byte, bool) {
	ks := o.keys.get(key)
	if ks == nil {
		return dst, false
	}
	ws := ks.find(w)
	if ws == nil || ws.w != w {
		if i, ok := ks.tomb(w.Start); ok && ks.lost()[i].w == w {
			dst = append(dst, stateVersion)
			dst = binary.AppendUvarint(dst, uint64(ks.lost()[i].next))
			return append(dst, flagTomb), true
		}
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
	if o.asg.Merging() {
		flags |= flagReach
	}
	if ws.revived != nil {
		flags |= flagRevived
	}
	dst = append(dst, flags)
	if o.asg.Merging() {
		dst = binary.AppendVarint(dst, ws.reach)
	}
	if t := ws.revived; t != nil {
		dst = binary.AppendVarint(dst, t.w.End)
		dst = binary.AppendUvarint(dst, uint64(t.next))
	}
	return ws.acc.appendBinary(o.aggs, dst), true
}

// Restore recreates one window, or tomb, from AppendState's encoding. Call it
// for every persisted one, then SetWatermark, before any OnRecord or Advance.
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
	if r.err == nil && flags == flagTomb && fires <= math.MaxInt32 && len(r.b) == 0 {
		return o.restoreTomb(key, w, int32(fires))
	}
	if r.err == nil && (fires > math.MaxInt32 || flags > flagFired|flagSilent|flagDrained|flagReach|flagRevived) {
		r.fail(fmt.Errorf("revision %d or flags %#x out of range", fires, flags))
	}
	reach := w.Start
	if flags&flagReach != 0 {
		reach = r.varint()
	}
	var revived *tomb
	if flags&flagRevived != 0 {
		end, next := r.varint(), r.uvarint()
		if r.err == nil && (end <= w.Start || next > math.MaxInt32) {
			r.fail(fmt.Errorf("revived session [%d, %d) or revision %d out of range", w.Start, end, next))
		}
		revived = &tomb{w: Window{Start: w.Start, End: end}, next: int32(next)}
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
	if _, dup := ks.tomb(w.Start); dup || ks.find(w) != nil {
		return fmt.Errorf("restoring window %v of key %q: a window with that start is already restored", w, key)
	}
	ws := &windowState{w: w, fires: int32(fires), fired: flags&flagFired != 0, emitted: fires > 0 && flags&flagSilent == 0,
		drained: flags&flagDrained != 0, reach: reach, revived: revived, acc: acc}
	ks.insert(ws)
	o.schedule(key, ws)
	o.seq = max(o.seq, acc.maxSeq()+1)
	return nil
}

// IsTomb reports whether state, as AppendState wrote it, is a tomb (Tomb)
// rather than a window.
func IsTomb(state []byte) bool {
	r := reader{b: state}
	v := r.byte()
	r.uvarint()
	flags := r.byte()
	return r.err == nil && v == stateVersion && flags == flagTomb && len(r.b) == 0
}

func (o *Operator) restoreTomb(key string, w Window, next int32) error {
	ks := o.keyState(key)
	if _, dup := ks.tomb(w.Start); dup || ks.find(w) != nil {
		return fmt.Errorf("restoring the tomb of session %v of key %q: a window with that start is already restored", w, key)
	}
	i, _ := ks.tomb(w.Start)
	ks.setLost(slices.Insert(ks.lost(), i, tomb{w: w, next: next}))
	o.timers.push(timer{time: o.tombExpiry(w.Start), key: key, window: w})
	return nil
}
