package windows

import (
	"cmp"
	"slices"

	"github.com/edged/edged/watermark"
)

// Reviving a session's start.
//
// A reading whose own session window [ts, ts+gap) is past cleanup but touches a
// live session merges with it, as in Flink, and the merged session starts at ts.
// That start may be one a session already emitted under and then lost (purged, or
// absorbed by a merge that retracted it or, discarding, left its deltas): the
// canonical case, gap 10 and lateness 0, is [0, 10) purged at watermark 9, a
// reading at 5 opening [5, 15), then a reading at 0 bridging into it. A consumer
// keeps the highest revision per start, so the revived session must count on past
// every row that start had: the key keeps a tomb per such start with the revision
// its next row must carry. The session that takes the start keeps the tomb until
// it emits under it (windowState.revived): should a merge move its start again
// first, the lost session's row still stands, and the tomb goes back.
//
// Only a reading past its own cleanup can revive a start: a session that opens
// at the watermark wm starts after wm-gap-lateness+1, and a start s lost by wm
// was in a session whose cleanup, s+gap-1+lateness at least, wm passed. So a lost
// start can be revived only by a session that already lies within one gap of it
// (a reading at s bridges into it), or by one that a chain of such readings
// stretches back to it, each within a gap of the last; Flink follows such a chain
// without limit. A tomb is kept while either can still happen:
//
//   - while a session could open within a gap of it: s >= reach(wm), the lowest
//     start one late reading can give a session that opens at wm, wm-2gap-lateness+2;
//   - while a live session W covers it as a start W could be stretched back to:
//     W.reach <= s < W.Start. A session's reach is reach(wm) when it opened, and
//     the lowest of the sessions it merged.
//
// Every lost start at or past a session's reach has its tomb, so a reading that
// would move a session's start below its reach goes to the late output instead:
// its start could be one whose tomb is gone. Only a chain reaches that far (one
// reading bridging into a session never lands below reach(wm) when the session
// opened). Keeping tombs as long as any chain might come back to them would keep
// every key's history for good.

// tomb is a lost session start: the session that had it, and the revision the
// start's next row must carry.
type tomb struct {
	w    Window
	next int32
}

// reach is the lowest start one late reading can give a session that opens at
// watermark wm: the session starts after wm-gap-lateness+1 and the reading lies
// at most a gap before it.
func (o *Operator) reach(wm int64) int64 {
	gap := o.gap()
	return watermark.AddSat(watermark.AddSat(watermark.AddSat(wm, -gap), -gap), 2-o.lateness)
}

// tombExpiry is the watermark from which reach exceeds start, so no session that
// opens can be stretched back to it.
func (o *Operator) tombExpiry(start int64) int64 {
	gap := o.gap()
	return watermark.AddSat(watermark.AddSat(watermark.AddSat(start, gap), gap), o.lateness-1)
}

// gap is the session gap; 0 for other assigners, whose windows leave no tombs.
// Not a field: a gateway holds an operator per key.
func (o *Operator) gap() int64 {
	if s, ok := o.asg.(session); ok {
		return s.gap
	}
	return 0
}

// bury keeps a tomb for the lost session w, which emitted up to revision next-1,
// unless nothing could revive its start.
func (o *Operator) bury(ks *keyState, w Window, next int32, out *Output) {
	if o.tombExpiry(w.Start) <= o.wm && !ks.covered(w.Start) {
		return
	}
	i, _ := ks.tomb(w.Start)
	ks.setLost(slices.Insert(ks.lost(), i, tomb{w: w, next: next}))
	o.timers.push(timer{time: o.tombExpiry(w.Start), key: ks.key, window: w})
	out.markUpdated(ks.key, w)
}

// revive removes the tomb of start, if any, and returns it: the session that
// takes the start keeps it until it emits under it (windowState.revived).
func (ks *keyState) revive(start int64, out *Output) (tomb, bool) {
	i, ok := ks.tomb(start)
	if !ok {
		return tomb{}, false
	}
	t := ks.lost()[i]
	ks.setLost(slices.Delete(ks.lost(), i, i+1))
	out.Purged = append(out.Purged, Ref{Key: ks.key, Window: t.w})
	return t, true
}

func (ks *keyState) tomb(start int64) (int, bool) {
	return slices.BinarySearchFunc(ks.lost(), start, func(t tomb, s int64) int { return cmp.Compare(t.w.Start, s) })
}

// lost returns the key's tombs.
func (ks *keyState) lost() []tomb {
	if ks.tombs == nil {
		return nil
	}
	return *ks.tombs
}

// setLost replaces the key's tombs; none frees their slice.
func (ks *keyState) setLost(ts []tomb) {
	switch {
	case len(ts) == 0:
		ks.tombs = nil
	case ks.tombs == nil:
		ks.tombs = &ts
	default:
		*ks.tombs = ts
	}
}

// covered reports whether a live session could be stretched back to start.
func (ks *keyState) covered(start int64) bool {
	for _, ws := range ks.wins {
		if ws.reach <= start && start < ws.w.Start {
			return true
		}
	}
	return false
}

// buryTimer reports whether t is the expiry timer of one of ks's tombs.
func (o *Operator) buryTimer(ks *keyState, t *timer) bool {
	i, ok := ks.tomb(t.window.Start)
	return ok && ks.lost()[i].w == t.window && o.tombExpiry(t.window.Start) == t.time
}

// pruneTombs drops the tombs nothing could revive any more. It runs when a tomb
// expires and when a session goes, which may have covered tombs past expiry. A
// tomb left earlier in the same output leaves Updated too: a caller that only
// keeps the last word per window (the window actor) would write it.
func (o *Operator) pruneTombs(ks *keyState, out *Output) {
	ks.setLost(slices.DeleteFunc(ks.lost(), func(t tomb) bool {
		if o.tombExpiry(t.w.Start) > o.wm || ks.covered(t.w.Start) {
			return false
		}
		ref := Ref{Key: ks.key, Window: t.w}
		out.Purged = append(out.Purged, ref)
		out.Updated = slices.DeleteFunc(out.Updated, func(u Ref) bool { return u == ref })
		return true
	}))
}

// Holds reports whether key holds any state: a live window, or a tomb of a start
// that a late reading could still revive. A key that holds none can be forgotten
// and come back as new without changing any output.
func (o *Operator) Holds(key string) bool { return o.keys.get(key) != nil }

// Tomb reports whether w is a session of key that is gone but whose start a late
// reading could still revive, and the revision that start's next row carries.
func (o *Operator) Tomb(key string, w Window) (next int, ok bool) {
	ks := o.keys.get(key)
	if ks == nil {
		return 0, false
	}
	i, ok := ks.tomb(w.Start)
	if !ok || ks.lost()[i].w != w {
		return 0, false
	}
	return int(ks.lost()[i].next), true
}
