package windows

// Peek returns the current values of one live window of key without firing it,
// and the revision its next result will carry; ok is false if the window does
// not exist. It is for inspecting state (`edged inspect`), not for emitting
// results: nothing is marked fired or updated.
func (o *Operator) Peek(key string, w Window) (values []NamedValue, revision int, ok bool) {
	ks := o.keys.get(key)
	if ks == nil {
		return nil, 0, false
	}
	ws := ks.find(w)
	if ws == nil || ws.w != w {
		return nil, 0, false
	}
	revision = int(ws.fires)
	if ws.revived != nil {
		revision = max(revision, int(ws.revived.next))
	}
	return ws.acc.results(o.aggs, make([]NamedValue, 0, len(o.aggs.aggs))), revision, true
}
