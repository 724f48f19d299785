package status

import "sort"

// lagRing is a bounded history of per-stream lag: one column per sample.
type lagRing struct {
	every int64
	times []int64
	lags  []map[string]float64
	next  int
	full  bool
}

func newLagRing(n int, every int64) lagRing {
	return lagRing{every: every, times: make([]int64, n), lags: make([]map[string]float64, n)}
}

func (r *lagRing) add(at int64, lags map[string]float64) {
	r.times[r.next], r.lags[r.next] = at, lags
	r.next = (r.next + 1) % len(r.times)
	r.full = r.full || r.next == 0
}

// history returns the ring oldest first, for the topN streams by latest lag.
func (r *lagRing) history(topN int) LagHistory {
	h := LagHistory{EveryMS: r.every, Series: map[string][]any{}}
	var order []int
	if r.full {
		for i := r.next; i < len(r.times); i++ {
			order = append(order, i)
		}
	}
	for i := 0; i < r.next; i++ {
		order = append(order, i)
	}
	if len(order) == 0 {
		return h
	}
	latest := r.lags[order[len(order)-1]]
	names := make([]string, 0, len(latest))
	for k := range latest {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if latest[names[i]] != latest[names[j]] {
			return latest[names[i]] > latest[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > topN {
		names = names[:topN]
	}
	for _, i := range order {
		h.Times = append(h.Times, r.times[i])
	}
	for _, k := range names {
		pts := make([]any, len(order))
		for j, i := range order {
			if v, ok := r.lags[i][k]; ok {
				pts[j] = v
			}
		}
		h.Series[k] = pts
	}
	return h
}
