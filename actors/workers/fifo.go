package workers

// fifo is a queue of scheduled mailboxes that reuses its array: it empties often, and
// then starts over at the front.
type fifo struct {
	fns  []func()
	head int    // fns[:head] were taken
	gen  uint64 // bumped by every pop: the watchdog tells from it whether the queue moved
}

func (q *fifo) len() int { return len(q.fns) - q.head }

func (q *fifo) push(fn func()) {
	if q.head > 0 && len(q.fns) == cap(q.fns) {
		n := copy(q.fns, q.fns[q.head:])
		clear(q.fns[n:])
		q.fns, q.head = q.fns[:n], 0
	}
	q.fns = append(q.fns, fn)
}

// pop takes the oldest, nil if there is none.
func (q *fifo) pop() func() {
	if q.head == len(q.fns) {
		return nil
	}
	fn := q.fns[q.head]
	q.fns[q.head] = nil
	q.head++
	q.gen++
	if q.head == len(q.fns) {
		q.fns, q.head = q.fns[:0], 0
	}
	return fn
}
