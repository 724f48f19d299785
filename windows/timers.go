package windows

// timer is a window's single pending event-time timer: its on-time firing at
// End-1, or, once fired, its cleanup at End-1+lateness. Entries are never
// removed early: a window that merged away or moved its timer leaves a stale
// entry that Advance recognises (window gone, or timer time changed) and skips.
type timer struct {
	time   int64
	key    string
	window Window
}

// before orders timers by time, then key, then start: the order in which
// windows fire.
func (t *timer) before(u *timer) bool {
	if t.time != u.time {
		return t.time < u.time
	}
	if t.key != u.key {
		return t.key < u.key
	}
	return t.window.Start < u.window.Start
}

// timerQueue is a binary min-heap, hand-written because container/heap
// boxes every pushed element in an interface.
type timerQueue []timer

func (q *timerQueue) push(t timer) {
	*q = append(*q, t)
	h := *q
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// peek returns the earliest timer; the queue must not be empty.
func (q timerQueue) peek() *timer { return &q[0] }

func (q *timerQueue) pop() timer {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = timer{}
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].before(&h[m]) {
			m = l
		}
		if r < len(h) && h[r].before(&h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
