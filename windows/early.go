package windows

import (
	"cmp"
	"slices"
)

// earlyRef is a window waiting for an early firing. The pointer may go stale
// (merged away, purged); FireEarly checks it is still the key's live window.
type earlyRef struct {
	key string
	ws  *windowState
}

func (o *Operator) markChanged(key string, ws *windowState) {
	ws.early = true
	o.changed = append(o.changed, earlyRef{key: key, ws: ws})
}

// EarlyPending reports whether a window changed since it last emitted and has
// not fired on time: the next FireEarly would emit something.
func (o *Operator) EarlyPending() bool { return len(o.changed) > 0 }

// FireEarly emits, as Early results with the next revision, the current
// contents of every window that changed since it last emitted and has not
// fired on time, in order of key, then start (as Advance). Its cost is in
// proportion to those windows, not to all live ones. A window that fired on
// time gets no early firing. It does nothing unless OperatorConfig.Early is
// set.
func (o *Operator) FireEarly(out *Output) {
	slices.SortFunc(o.changed, func(a, b earlyRef) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.ws.w.Start, b.ws.w.Start)
	})
	for i, c := range o.changed {
		o.changed[i] = earlyRef{}
		c.ws.early = false
		ks := o.keys.get(c.key)
		if ks == nil || c.ws.fired || ks.find(c.ws.w) != c.ws {
			continue
		}
		o.fire(ks.key, c.ws, Early, out)
		out.markUpdated(ks.key, c.ws.w)
	}
	o.changed = o.changed[:0]
}
