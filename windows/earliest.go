package windows

// Earliest returns key's oldest live window and, of those that have not fired
// yet, the one that ends first; a zero Window where there is none. It is for
// reporting (/status), and allocates nothing.
func (o *Operator) Earliest(key string) (oldest, next Window) {
	ks := o.keys.get(key)
	if ks == nil || len(ks.wins) == 0 {
		return Window{}, Window{}
	}
	oldest = ks.wins[0].w
	for _, ws := range ks.wins {
		if !ws.fired && (next == Window{} || ws.w.End < next.End) {
			next = ws.w
		}
	}
	return oldest, next
}
