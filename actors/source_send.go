package actors

import (
	"cmp"
	"slices"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/watermark"
)

// Where a source's output goes: records and watermarks to the window actors of its
// keys, flushes passed on to the ones it touched.

// boundKey is a window actor the source feeds. Its keyID is held as two fields, so
// the flag fills the word the window definition's index leaves: a source has one
// per key it feeds.
type boundKey struct {
	key     string
	win     int32
	touched bool
	pid     *actor.PID
}

func (b *boundKey) is(id keyID) bool { return b.key == id.key && int(b.win) == id.win }

func compareBound(a, b *boundKey) int {
	return cmp.Or(cmp.Compare(a.win, b.win), strings.Compare(a.key, b.key))
}

// boundTo returns the window actor of id if the source has its address. Most sources
// feed one key per window definition, so the last one found is tried before the map,
// whose lookup hashes the key for every record.
func (s *source) boundTo(id keyID) *boundKey {
	if b := s.lastBound; b != nil && b.is(id) {
		return b
	}
	b, _ := s.bound.get(id)
	if b != nil {
		s.lastBound = b
	}
	return b
}

// forward sends the reading to the window actors of its key and hands them the ack.
func (s *source) forward(ctx actor.Context, m *Inbound, id uint64) bool {
	n := len(s.plan.windows)
	if n == 0 {
		return false
	}
	r := s.reading
	rec := &m.rec
	*rec = RecordDecoded{
		Stream: s.stream(), Key: r.Key, TS: r.TS, Status: s.status(),
		ID: id, QoS: m.QoS, Dup: m.Duplicate, Payload: m.Payload, Arrived: m.At, ack: m.ack,
	}
	rec.Values = s.values(rec.valueBuf[:0], r.Values)
	if s.env.traceWatermark != nil {
		// The record carries the watermark it moved to the window actors, which may
		// fire on it before the next periodic emit: the trace must show it first.
		s.env.traceWatermark(s.device, &WatermarkEmitted{Stream: s.stream(), Status: rec.Status, At: m.At})
	}
	m.ack.Add(n - 1) // the source's own hold passes to the first window actor
	for _, wi := range s.plan.windows {
		id := keyID{wi, r.Key}
		if b := s.boundTo(id); b != nil {
			s.touch(b)
			ctx.Send(b.pid, rec)
			continue
		}
		if s.routed == nil {
			s.routed = map[keyID]uint64{}
		}
		s.routed[id]++
		ctx.Send(ctx.Parent(), &routeRecord{win: wi, rec: rec, seq: s.routed[id]})
	}
	return true
}

// onKeyBound starts sending to a window actor directly. It first gets the status the
// stream last emitted: one emitted while its address was on the way did not reach it.
// Not the generator's status, which moves with each record before the next emit:
// the actor must hear what the actors fed all along heard (a key that comes back
// after passivation), and a record brings its own.
func (s *source) onKeyBound(ctx actor.Context, m *keyBound) {
	if _, ok := s.bound.get(m.id); ok || m.seq != s.routed[m.id] {
		return
	}
	delete(s.routed, m.id)
	if len(s.routed) == 0 {
		s.routed = nil // most sources bind their few keys once: spare the idle map
	}
	if m.pid == nil {
		return // the key was refused (key limit): its next reading asks again
	}
	b := &boundKey{key: m.id.key, win: int32(m.id.win), pid: m.pid}
	s.bound.set(m.id, b)
	// By window definition, then key: the order the window actors hear watermarks
	// in is the order they fire in, and it must not depend on when a key was
	// bound (a passivated key is bound again when it comes back).
	i, _ := slices.BinarySearchFunc(s.fed, b, compareBound)
	s.fed = slices.Insert(s.fed, i, b)
	s.touch(b)
	ctx.Send(b.pid, &WatermarkEmitted{Stream: s.stream(), Status: s.handle.status(), At: s.now})
}

// onUnbind stops sending to a window actor the pipeline is passivating and tells
// it so, after everything sent to it before (pipeline_key_passivate.go). A flush still owed
// to it is not sent: if it holds changes, it stays, and its rebinding touches it.
func (s *source) onUnbind(ctx actor.Context, m *unbind) {
	if b, ok := s.bound.get(m.id); ok {
		s.bound.delete(m.id)
		s.fed = slices.DeleteFunc(s.fed, func(x *boundKey) bool { return x == b })
		s.touched = slices.DeleteFunc(s.touched, func(x *boundKey) bool { return x == b })
		if s.lastBound == b {
			s.lastBound = nil
		}
	}
	ctx.Send(m.pid, &unbound{})
}

func (s *source) touch(b *boundKey) {
	if !b.touched {
		b.touched = true
		s.touched = append(s.touched, b)
		s.handle.markDirty()
	}
}

// emit sends the stream's status to its window actors if it changed. Only the
// periodic emit runs the idleness check (Flink's periodic idleness probe);
// emits for a reactivating record or a mark in between must not move it.
func (s *source) emit(ctx actor.Context, now int64, periodic bool) {
	var st watermark.Status
	var changed bool
	if periodic {
		st, changed = s.gen.Tick(now)
	} else {
		st, changed = s.gen.Peek(now)
	}
	if st.Watermark != watermark.Min {
		s.stats.Lag.Set(float64(now-st.Watermark) / 1000)
	}
	// Published for /status on the periodic emit only: a punctuated stream emits
	// for every record that carries a mark, and /status samples every 2 s.
	if gs := s.gen.State(); periodic && gs.Seen {
		s.stats.MaxEvent.Set(float64(gs.Max) / 1000)
		s.stats.Arrival.Set(float64(gs.LastArrival) / 1000)
	}
	if !changed {
		return
	}
	s.handle.setStatus(st)
	// A record's flush saves the watermark the record moved, so the emit that sends it
	// on changes nothing saved (gen.State() is what the flush wrote): each record
	// costs one write of the stream's state, not two.
	if !s.saveLater(st) && s.gen.State() != s.saved {
		s.dirty = true
		s.handle.markDirty()
	}
	if st.Watermark != watermark.Min {
		s.stats.Watermark.Set(float64(st.Watermark) / 1000)
	}
	s.stats.SetIdle(st.Idle)
	if s.env.traceWatermark != nil {
		s.env.traceWatermark(s.device, &WatermarkEmitted{Stream: s.stream(), Status: st, At: now})
	}
	if len(s.fed) == 0 || s.unheard(st) {
		return
	}
	s.sent(st)
	wm := takeWatermark(s.stream(), st, now, len(s.fed))
	for _, b := range s.fed {
		s.touch(b)
		ctx.Send(b.pid, wm) // the last send may put wm back: nothing of it is read after
	}
}

// maxUnsaved reports a record that raised the stream's max event time since the state
// was saved. Its status change is noticed only by the next emit (a tick), and a flush
// may come first: a reload's, or a result's. The record's window actors commit it in
// this flush, so the stream's state goes with it; a reload or a crash then resumes the
// stream from it, not from an older max event time and watermark.
func (s *source) maxUnsaved() bool {
	st := s.gen.State()
	return st.Seen && st.Max != s.saved.Max
}

// onFlush hands the committer the source's own changes and passes the flush on to the
// window actors it touched, telling the committer first how many answers to expect.
// The flush message itself is passed on: messages are read-only once sent.
func (s *source) onFlush(ctx actor.Context, f *Flush) {
	if s.dirty || s.maxUnsaved() {
		st := s.gen.State()
		s.saved = st
		saved, kept := s.uptime.saved(st)
		s.savedIdle = st.Idle && kept // a base the uptime could not take yet is saved at the next change
		s.pending.Unit().SetStream(commit.StreamPut{Device: s.device, Stream: s.stream(), State: saved})
		s.handle.setAdvancing(saved.Base != watermark.Min)
		s.dirty = false
	}
	reply := s.pending.Flushed(f.Epoch, len(s.touched))
	s.flushedUnits(reply.Units)
	// Flushed by window definition, then key, as fed (see onKeyBound).
	slices.SortFunc(s.touched, compareBound)
	// The reply tells the committer how many window answers to wait for, so it must
	// arrive before any of them: it may ride with a window actor's answer only when
	// that is the one answer (with two, the other could arrive first and complete the
	// epoch without this source's state).
	if len(s.touched) == 1 {
		b := s.touched[0]
		b.touched = false
		reply.Flush = f
		ctx.Send(b.pid, reply) // the flush, and the reply to hand on
	} else {
		ctx.Send(s.committer, reply)
		for _, b := range s.touched {
			b.touched = false
			ctx.Send(b.pid, f)
		}
	}
	s.touched = s.touched[:0]
	// Records sent since the last flush hold their values; the next one cuts a new
	// chunk, so an idle source holds none.
	s.arena = nil
}
