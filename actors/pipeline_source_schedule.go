package actors

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
	"sync/atomic"

	"github.com/edged/edged/watermark"
)

// How a pipeline reaches its sources without visiting those with nothing to do. A
// gateway's sources are mostly quiet, and a tick or a flush that looked at each of
// them would cost as much as the gateway had ever seen sensors, not as much as are
// reporting. So the pipeline keeps:
//
//   - awake: the sources that want every tick, by rank;
//   - asleep: the sources that want no tick before a time of their own, in a heap
//     by that time (source_sleep.go);
//   - woken: sources that woke on their own goroutine (a message came), handed over
//     through a lock-free stack and put back among the awake at the next tick;
//   - dirty: sources that hold changes, handed over the same way and flushed in
//     rank order.
//
// A source's rank is its place in the order it was first spawned (or restored):
// ticks and flushes go out in that order, so a replay's output does not depend on
// which sources slept. A source passivated and activated again keeps its rank.

// sourceSchedule is the pipeline's view of which sources need what.
type sourceSchedule struct {
	awake  []*sourceHandle // by rank
	asleep sleepHeap
	woken  handleStack
	dirty  handleStack
	// flushable are the sources taken from dirty, not flushed yet: a scoped flush
	// asks only some of them (pipeline_commit_soon.go).
	flushable []*sourceHandle
	nextRank  uint64
	// advancing counts the sources, running or passivated, whose saved state
	// extrapolates from the device's uptime (pipeline_uptime.go).
	advancing atomic.Int64

	// wake is the earliest processing time (ms) the pipeline needs a tick, as it
	// published after its last message; ticks asks the ticker for one (topology_tick_plan.go).
	// A source that changes or wakes after that needs the tick that acts on it: the
	// next flush (flushAt) or the next tick of the sources (tickAt), also published
	// by the pipeline. Both only move forward, so a source that reads one about to
	// be replaced asks for a tick early, never late.
	wake    atomic.Int64
	flushAt atomic.Int64
	tickAt  atomic.Int64
	ticks   *tickPlan
}

// newSourceSchedule returns the schedule of one device's sources; ticks is nil in
// replay, which ticks on its own clock.
func newSourceSchedule(ticks *tickPlan) *sourceSchedule {
	s := &sourceSchedule{ticks: ticks}
	s.published(math.MinInt64, math.MinInt64, math.MinInt64)
	return s
}

// reset forgets every source: a restarted pipeline's sources are new actors.
func (s *sourceSchedule) reset() {
	s.dirty.take()
	s.woken.take()
	ticks := s.ticks
	s.awake, s.asleep, s.flushable, s.nextRank = nil, nil, nil, 0
	s.advancing.Store(0)
	s.ticks = ticks
	s.published(math.MinInt64, math.MinInt64, math.MinInt64)
}

// published notes what the pipeline needs after its last message: a tick at wake,
// and one at flushAt or tickAt for a source that changes or wakes meanwhile.
func (s *sourceSchedule) published(wake, flushAt, tickAt int64) {
	s.flushAt.Store(flushAt)
	s.tickAt.Store(tickAt)
	s.wake.Store(wake)
}

// wakeAt is when the device needs its next tick: when the pipeline said, or sooner
// when a source changed or woke since the pipeline last looked.
func (s *sourceSchedule) wakeAt() int64 {
	t := s.wake.Load()
	if s.dirty.head.Load() != nil {
		t = min(t, s.flushAt.Load())
	}
	if s.woken.head.Load() != nil {
		t = min(t, s.tickAt.Load())
	}
	return t
}

// add schedules a new or activated source, awake. rank 0 gives it the next rank.
func (s *sourceSchedule) add(h *sourceHandle, rank uint64) {
	if rank == 0 {
		s.nextRank++
		rank = s.nextRank
	}
	h.rank, h.heapAt = rank, -1
	if h.heard.Load() == 0 {
		h.setStatus(watermark.Status{Watermark: watermark.Min})
	}
	h.schedule = s
	s.insertAwake(h)
}

// insertAwake puts h among the awake sources at its rank, unless it is there.
func (s *sourceSchedule) insertAwake(h *sourceHandle) {
	if h.isAwake {
		return
	}
	i, _ := slices.BinarySearchFunc(s.awake, h.rank, func(a *sourceHandle, r uint64) int { return cmp.Compare(a.rank, r) })
	s.awake = slices.Insert(s.awake, i, h)
	h.isAwake = true
}

// due returns the sources to tick at now, by rank: the awake ones, those whose sleep
// ends by now, and those that woke since the last tick. A source found asleep until
// later moves to the heap (the lag it shows meanwhile is computed from its drift
// when read: status.Topic).
func (s *sourceSchedule) due(now int64) []*sourceHandle {
	for _, h := range s.woken.take() {
		h.queued.Store(false)
		if h.sleep.Load() == nil && !h.gone {
			s.asleep.remove(h)
			s.insertAwake(h)
		}
	}
	for len(s.asleep) > 0 && s.asleep[0].until <= now {
		s.insertAwake(heap.Pop(&s.asleep).(*sourceHandle))
	}
	kept := s.awake[:0]
	var ticked []*sourceHandle
	for _, h := range s.awake {
		if z := h.sleep.Load(); z != nil && now < z.until {
			h.isAwake = false
			h.until = z.until
			heap.Push(&s.asleep, h)
			continue
		}
		kept = append(kept, h)
		ticked = append(ticked, h)
	}
	clear(s.awake[len(kept):])
	s.awake = kept
	return ticked
}

// remove forgets h: it was passivated.
func (s *sourceSchedule) remove(h *sourceHandle) {
	h.gone = true
	s.asleep.remove(h)
	if h.isAwake {
		h.isAwake = false
		s.awake = slices.DeleteFunc(s.awake, func(a *sourceHandle) bool { return a == h })
	}
}

// live returns every running source, by rank.
func (s *sourceSchedule) live() []*sourceHandle {
	all := append(slices.Clone(s.awake), s.asleep...)
	slices.SortFunc(all, func(a, b *sourceHandle) int { return cmp.Compare(a.rank, b.rank) })
	return all
}

// A source's dirty state: clean; holding changes, its handle in the dirty stack
// (pushed by the source); or holding changes, taken from the stack into flushable by
// the pipeline. Only a clean handle is pushed, so a handle is never in the stack
// twice, and only a taken one is flushed and made clean.
const (
	clean int32 = iota
	dirtyPushed
	dirtyTaken
)

// takeDirty moves the sources that reported changes into flushable.
func (s *sourceSchedule) takeDirty() {
	for _, h := range s.dirty.take() {
		h.dirty.Store(dirtyTaken)
		s.flushable = append(s.flushable, h)
	}
}

// flushAll returns the sources that hold changes, by rank, making them clean, and
// empties flushable.
func (s *sourceSchedule) flushAll() []*sourceHandle {
	s.takeDirty()
	out := s.flushable[:0:0]
	for _, h := range s.flushable {
		if !h.gone && h.dirty.CompareAndSwap(dirtyTaken, clean) {
			out = append(out, h)
		}
	}
	clear(s.flushable)
	s.flushable = s.flushable[:0]
	slices.SortFunc(out, func(a, b *sourceHandle) int { return cmp.Compare(a.rank, b.rank) })
	return out
}

// flushOne makes h clean and reports whether it held changes, for a flush of some
// sources only (pipeline_commit_soon.go). One that reported its changes since the stack was
// last taken is taken first.
func (s *sourceSchedule) flushOne(h *sourceHandle) bool {
	if h.dirty.Load() == dirtyPushed {
		s.takeDirty()
	}
	return h.dirty.CompareAndSwap(dirtyTaken, clean)
}

// markDirty notes that h holds changes; it is flushed with the next flush. Called by
// the source itself, on its own goroutine.
func (h *sourceHandle) markDirty() {
	if h.dirty.Load() == clean && h.dirty.CompareAndSwap(clean, dirtyPushed) {
		h.schedule.dirty.push(h, &h.nextDirty)
		h.schedule.ticks.need(h.schedule.flushAt.Load())
	}
}

// setAdvancing notes whether h's saved state extrapolates from the device's uptime.
func (h *sourceHandle) setAdvancing(v bool) {
	if h.advancing.Swap(v) != v {
		if v {
			h.schedule.advancing.Add(1)
		} else {
			h.schedule.advancing.Add(-1)
		}
	}
}

// setStatus notes the status h's source sent its window actors (or would have, had
// it fed any), for a window actor that comes back (pipeline_key_passivate.go reactivate).
// Called by the source itself.
func (h *sourceHandle) setStatus(st watermark.Status) {
	wm := min(max(st.Watermark, -statusLimit), statusLimit) // Min and Max land on the limits
	v := wm << 1
	if st.Idle {
		v |= 1
	}
	h.heard.Store(v)
}

// status is the status setStatus noted last.
func (h *sourceHandle) status() watermark.Status {
	v := h.heard.Load()
	wm := v >> 1
	switch wm {
	case -statusLimit:
		wm = watermark.Min
	case statusLimit:
		wm = math.MaxInt64
	}
	return watermark.Status{Watermark: wm, Idle: v&1 == 1}
}

// statusLimit bounds a packed watermark: far past any timestamp edged accepts
// (year 9999), so only Min and +∞ are clamped to it.
const statusLimit = 1 << 61

// woke notes that h was taken out of its sleep by a message: it is ticked again from
// the next tick on. Called by the source itself.
func (h *sourceHandle) woke() {
	if !h.queued.Swap(true) {
		h.schedule.woken.push(h, &h.nextWoken)
		h.schedule.ticks.need(h.schedule.tickAt.Load())
	}
}

// handleStack hands source handles from their sources' goroutines to the pipeline's:
// a lock-free stack the pipeline empties whole. A handle is pushed again only after
// the pipeline took it and cleared the flag that guards the push (dirty, queued).
type handleStack struct{ head atomic.Pointer[stackNode] }

type stackNode struct {
	h    *sourceHandle
	next *stackNode
}

func (s *handleStack) push(h *sourceHandle, node **stackNode) {
	n := *node
	if n == nil {
		n = &stackNode{h: h}
		*node = n
	}
	for {
		old := s.head.Load()
		n.next = old
		if s.head.CompareAndSwap(old, n) {
			return
		}
	}
}

// take empties the stack and returns its handles, oldest first. Their nodes are read
// before the caller changes the states that allow them to be pushed again.
func (s *handleStack) take() []*sourceHandle {
	var hs []*sourceHandle
	for n := s.head.Swap(nil); n != nil; n = n.next {
		hs = append(hs, n.h)
	}
	slices.Reverse(hs)
	return hs
}

// sleepHeap orders sleeping sources by the time they want their next tick, then
// rank; each knows its place in it (heapAt, -1 when not in it).
type sleepHeap []*sourceHandle

func (q sleepHeap) Len() int { return len(q) }
func (q sleepHeap) Less(i, j int) bool {
	return q[i].until < q[j].until || q[i].until == q[j].until && q[i].rank < q[j].rank
}
func (q sleepHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].heapAt, q[j].heapAt = i, j
}
func (q *sleepHeap) Push(x any) {
	h := x.(*sourceHandle)
	h.heapAt = len(*q)
	*q = append(*q, h)
}
func (q *sleepHeap) Pop() any {
	old := *q
	h := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	h.heapAt = -1
	return h
}

// remove takes h out of the heap if it is in it.
func (q *sleepHeap) remove(h *sourceHandle) {
	if h.heapAt >= 0 {
		heap.Remove(q, h.heapAt)
	}
}
