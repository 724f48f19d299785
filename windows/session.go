package windows

import "slices"

// onSessionRecord handles a record under a merging assigner, as Flink's
// MergingWindowSet does: the record's window [ts, ts+gap) merges with every
// live window of the key it overlaps or touches. Lateness is judged on the
// merged window, so a late record that bridges into a live session joins it,
// and may move its start earlier, to a start a lost session had (tombs.go).
func (o *Operator) onSessionRecord(key string, r *Record, out *Output) Verdict {
	nw := out.assigned[0]
	ks := o.keys.get(key)
	var lo, hi int // ks.wins[lo:hi] intersect nw; they are contiguous
	if ks != nil {
		lo = ks.search(nw.Start)
		if lo > 0 && ks.wins[lo-1].w.End >= nw.Start {
			lo--
		}
		hi = lo
		for hi < len(ks.wins) && ks.wins[hi].w.Start <= nw.End {
			hi++
		}
	}
	if lo == hi {
		if nw.cleanupTime(o.lateness) <= o.wm {
			return o.reject(key, r.TS, out)
		}
		if ks == nil {
			ks = o.keyState(key)
		}
		ws := o.newWindow(ks, nw, o.aggs.newAccumulator())
		ws.reach = o.reach(o.wm)
		o.addSession(ks, ws, r, out)
		return Applied
	}

	first := ks.wins[lo]
	cover := Window{Start: min(nw.Start, first.w.Start), End: max(nw.End, ks.wins[hi-1].w.End)}
	if hi-lo == 1 && cover == first.w {
		o.addSession(ks, first, r, out)
		return Applied
	}
	reach := o.reach(o.wm)
	for _, ws := range ks.wins[lo:hi] {
		reach = min(reach, ws.reach)
	}
	if cover.Start < first.w.Start && cover.Start < reach {
		// Flink would merge it, but a lost start there may have no tomb left.
		return o.reject(key, r.TS, out)
	}
	// Merge into the first window's state; the merged window waits for its
	// own end like a new one, but keeps counting revisions past every
	// firing of the windows it absorbed and of a lost session whose start it
	// takes. Absorbed windows that emitted under a start the merged window
	// does not keep are retracted, so a downstream table does not count
	// their records twice (discarding windows emitted deltas, which stay
	// valid: nothing to retract), and leave a tomb of that start; one that
	// took a lost session's start and never emitted under it leaves that
	// session's tomb back.
	firstW, firstFires, firstEmitted, firstRevived := first.w, first.fires, first.emitted, first.revived
	out.touched = append(out.touched[:0], ks.wins[lo:hi]...)
	for _, ws := range out.touched {
		out.Purged = append(out.Purged, Ref{Key: ks.key, Window: ws.w})
		if ws.emitted && ws.w.Start != cover.Start && !o.discard {
			out.Results = append(out.Results, Result{Key: ks.key, Window: ws.w, Revision: int(ws.fires),
				Kind: Retract, Watermark: o.wm, MergedInto: cover})
		}
		if ws != first {
			first.acc.merge(o.aggs, &ws.acc)
			first.fires = max(first.fires, ws.fires)
		}
	}
	ks.wins = slices.Delete(ks.wins, lo+1, hi)
	first.emitted = first.emitted && first.w.Start == cover.Start
	first.w = cover
	first.fired = false
	first.reach = reach
	if cover.Start != firstW.Start {
		first.revived = nil
		if t, ok := ks.revive(cover.Start, out); ok {
			first.revived = &t
		}
	}
	for _, ws := range out.touched {
		w, fires, emitted, revived := ws.w, ws.fires, ws.emitted, ws.revived
		if ws == first {
			w, fires, emitted, revived = firstW, firstFires, firstEmitted, firstRevived
		}
		switch {
		case w.Start == cover.Start:
		case emitted:
			if !o.discard {
				fires++ // past the retract
			}
			o.bury(ks, w, fires, out)
		case revived != nil:
			o.bury(ks, revived.w, revived.next, out)
		}
	}
	clear(out.touched)
	o.schedule(ks.key, first)
	o.addSession(ks, first, r, out)
	return Applied
}

// addSession adds r to a session window, re-firing it if its end has passed.
func (o *Operator) addSession(ks *keyState, ws *windowState, r *Record, out *Output) {
	ws.acc.add(o.aggs, r, o.seq)
	ws.drained = false
	o.seq++
	if ws.fired {
		o.fire(ks.key, ws, LateUpdate, out)
	} else if o.early && !ws.early {
		o.markChanged(ks.key, ws)
	}
	out.markUpdated(ks.key, ws.w)
}
