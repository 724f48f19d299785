package actors

import (
	"container/heap"
	"math"
)

// timers holds values until their time comes, in a heap by due time: a pipeline
// reaches what is due without visiting what is not. Values due at the same time come
// out in the order they were added, so a replay pops them the same way every time.
type timers[T any] struct {
	q   timerQueue[T]
	seq uint64
}

type timer[T any] struct {
	due int64
	seq uint64
	v   T
}

// add holds v until due.
func (t *timers[T]) add(due int64, v T) {
	t.seq++
	heap.Push(&t.q, timer[T]{due: due, seq: t.seq, v: v})
}

// pop returns the next value due by now, if there is one, and when it was due.
func (t *timers[T]) pop(now int64) (v T, due int64, ok bool) {
	if len(t.q) == 0 || t.q[0].due > now {
		return v, 0, false
	}
	e := heap.Pop(&t.q).(timer[T])
	return e.v, e.due, true
}

// next returns when the next value is due; MaxInt64 if none is held.
func (t *timers[T]) next() int64 {
	if len(t.q) == 0 {
		return math.MaxInt64
	}
	return t.q[0].due
}

// timerQueue is the heap.Interface of timers.
type timerQueue[T any] []timer[T]

func (q timerQueue[T]) Len() int { return len(q) }
func (q timerQueue[T]) Less(i, j int) bool {
	return q[i].due < q[j].due || q[i].due == q[j].due && q[i].seq < q[j].seq
}
func (q timerQueue[T]) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *timerQueue[T]) Push(x any)   { *q = append(*q, x.(timer[T])) }
func (q *timerQueue[T]) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = timer[T]{}
	*q = old[:len(old)-1]
	return e
}
