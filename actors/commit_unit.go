package actors

import (
	"sync/atomic"

	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

// unit is a piece of one actor's changes since its previous flush. The committer
// writes it atomically, then runs its acks and hands its outputs on.
type unit struct {
	stream     *streamPut
	valve      *valvePut
	dropValve  *valveDrop
	dropStream *streamDrop
	def        *defPut
	puts       []windowPut
	deletes    []persist.WindowKey
	marks      []markPut
	outbox     []outboxPut
	dequeue    []dequeuePut
	acks       []*ack
	bytes      int    // values in outbox and puts, roughly
	stamp      uint64 // when its first outbox entry was produced; 0: it has none

	// commits counts the times the committer made the unit durable, for a window that
	// waits for it (see generation); nil until one does. A pooled unit is used again,
	// so the window compares with the count it saw when it sent the unit: the count
	// only grows. It is apart from the unit so that an idle window keeps a counter
	// alive, not the unit and the reply it is part of.
	commits *atomic.Uint32
	reply   *Flushed // the pooled reply this is the main unit of (see replies); nil if none
	slab    []byte   // window states are encoded into it, one buffer for the unit's puts

	// An actor's unit of one flush usually holds one ack, one window state or one
	// stream state: a unit from newUnit keeps them in these, not in an allocation each.
	ackBuf    [1]*ack
	putBuf    [1]windowPut
	streamBuf streamPut
}

// newUnit returns a unit whose first ack and window state need no allocation.
func newUnit() *unit {
	u := &unit{}
	u.init()
	return u
}

// init readies a new or reset unit; a reused one keeps the buffers reset left it.
func (u *unit) init() {
	if u.acks == nil {
		u.acks = u.ackBuf[:0]
	}
	if u.puts == nil {
		u.puts = u.putBuf[:0]
	}
}

// Bounds of the buffers a pooled unit keeps, in elements and in slab bytes: an
// actor's usual flush fits, a burst's buffers go to the garbage collector. An idle
// actor holds one unit with what its buffers kept.
const (
	maxKeptLen  = 64
	maxKeptSlab = 1 << 10
)

// reset empties the unit for reuse, dropping what it referenced.
func (u *unit) reset() {
	u.stream, u.valve, u.dropValve, u.dropStream, u.def, u.bytes, u.stamp = nil, nil, nil, nil, nil, 0, 0
	u.puts = emptied(u.puts)
	u.deletes = emptied(u.deletes)
	u.marks = emptied(u.marks)
	u.outbox = emptied(u.outbox)
	u.dequeue = emptied(u.dequeue)
	u.acks = emptied(u.acks)
	u.slab = u.slab[:0]
	if cap(u.slab) > maxKeptSlab {
		u.slab = nil
	}
	// A slice that outgrew its inline buffer left its first element there.
	u.ackBuf, u.putBuf, u.streamBuf = [1]*ack{}, [1]windowPut{}, streamPut{}
}

// emptied clears s and returns it with length 0, or nil if it is too big to keep.
func emptied[T any](s []T) []T {
	clear(s)
	if cap(s) > maxKeptLen {
		return nil
	}
	return s[:0]
}

// setStream puts the stream's generator state into the unit.
func (u *unit) setStream(s streamPut) {
	u.streamBuf = s
	u.stream = &u.streamBuf
}

type streamPut struct {
	device, stream string
	state          watermark.GeneratorState
}

type valvePut struct {
	device, window, key string
	watermark           int64 // the operator's
	inputs              []watermark.ValveInput
}

// valveDrop deletes the saved valve of a passivated key (pipeline_key_passivate.go).
type valveDrop struct{ device, window, key string }

// streamDrop deletes the saved state of a forgotten stream (pipeline_source_passivate.go).
type streamDrop struct{ device, stream string }

type defPut struct {
	device, window string
	def            []byte
}

type windowPut struct {
	key   persist.WindowKey
	state []byte
}

type markPut struct {
	window, key string // window "" marks a source-level effect of stream key
	id          uint64
}

type outboxPut struct {
	queue string
	entry outboxEntry
}

type dequeuePut struct {
	queue string
	seq   uint64
}

func (u *unit) empty() bool {
	return u.stream == nil && u.valve == nil && u.dropValve == nil && u.dropStream == nil && u.def == nil && len(u.puts) == 0 &&
		len(u.deletes) == 0 && len(u.marks) == 0 && len(u.outbox) == 0 &&
		len(u.dequeue) == 0 && len(u.acks) == 0
}

// A unit must commit in one Badger transaction, which holds at most 30 % of a
// memtable (persist's txnBytes): about 6,500 entries or 600 KB with edged's 2 MB
// memtables. An actor therefore closes its unit and starts another once it holds
// maxUnitChanges changes or maxUnitBytes of values; each closed unit is atomic on its
// own (its state, the records applied to it, their marks and results), and the
// committer acknowledges none of them before the last is durable. A unit can exceed
// the bounds by one record's or one watermark's effect.
const (
	maxUnitChanges = 1000
	maxUnitBytes   = 256 << 10
)

// changes counts the store entries the unit writes.
func (u *unit) changes() int {
	return len(u.puts) + len(u.deletes) + len(u.marks) + len(u.outbox) + len(u.dequeue)
}

// full reports whether the unit reached a bound, given extra changes and bytes its
// actor has not written into it yet.
func (u *unit) full(extra, extraBytes int) bool {
	return u.changes()+extra >= maxUnitChanges || u.bytes+extraBytes >= maxUnitBytes
}

// addOutbox appends an outbox entry, counting its bytes. The unit's first one stamps
// it with its place in the order outputs were produced (committer.settle).
func (u *unit) addOutbox(e *env, o outboxPut) {
	if u.stamp == 0 {
		u.stamp = e.outputs.Add(1)
	}
	u.outbox = append(u.outbox, o)
	u.bytes += len(o.entry.Topic) + len(o.entry.Payload)
}

// pendingUnits collects an actor's changes until its next flush: the main unit
// (state, results, the records it applied), the main units closed before it because
// they were full (oldest first, so later state overwrites earlier), and, apart from
// them, units of records that went to an outbox, each holding its records' dedup marks
// and acks, so every record's effect stays atomic with its mark.
//
// An actor's first change after a flush takes the next flush's reply from replies:
// the reply and the unit it will most likely carry are one object. Until then main
// and reply are nil, so an idle actor, most of a gateway's, holds neither.
type pendingUnits struct {
	main  *unit       // nil until a change since the last flush
	reply *Flushed    // the next flush's reply, whose own unit is the first main unit; nil until taken
	extra *extraUnits // nil until a flush has more units than its main one; kept for the next
}

// extraUnits are the units of a flush besides its main one, which most flushes of
// most actors never have.
type extraUnits struct {
	closed []*unit
	spill  []*unit
}

func (p *pendingUnits) more() *extraUnits {
	if p.extra == nil {
		p.extra = &extraUnits{}
	}
	return p.extra
}

// unit returns the main unit, starting it at the first change since the last flush.
func (p *pendingUnits) unit() *unit {
	if p.main == nil {
		if p.reply == nil {
			p.reply = takeReply()
			p.main = &p.reply.main
		} else {
			p.main = newUnit()
		}
	}
	return p.main
}

// empty reports whether the actor holds no change for its next flush.
func (p *pendingUnits) empty() bool {
	return (p.main == nil || p.main.empty()) && (p.extra == nil || len(p.extra.closed) == 0 && len(p.extra.spill) == 0)
}

// mainFull is main.full, for a main unit that may not be started yet.
func (p *pendingUnits) mainFull(extra, extraBytes int) bool {
	if p.main == nil {
		return extra >= maxUnitChanges || extraBytes >= maxUnitBytes
	}
	return p.main.full(extra, extraBytes)
}

// spillUnit returns a unit with room for one more outbox record.
func (p *pendingUnits) spillUnit() *unit {
	x := p.more()
	if n := len(x.spill); n > 0 && !x.spill[n-1].full(0, 0) {
		return x.spill[n-1]
	}
	u := &unit{}
	x.spill = append(x.spill, u)
	return u
}

// last returns the unit that take will return last: it commits after every other
// unit of this flush.
func (p *pendingUnits) last() *unit {
	if x := p.extra; x != nil && len(x.spill) > 0 {
		return x.spill[len(x.spill)-1]
	}
	return p.unit()
}

// closeMain moves a non-empty main unit to closed and starts a new one.
func (p *pendingUnits) closeMain() {
	if p.main != nil && !p.main.empty() {
		x := p.more()
		x.closed = append(x.closed, p.main)
		p.main = newUnit()
	}
}

// take returns the non-empty units, in the order they must commit, and starts afresh.
func (p *pendingUnits) take() []*unit {
	units := p.takeInto(nil)
	if p.main == nil {
		p.main = newUnit()
	}
	return units
}

// flushed is the committer's Flushed for epoch holding the units taken, and starts
// afresh with neither a reply nor a main unit. An actor with no change answers with
// a reply taken now: the committer puts it back on receipt.
func (p *pendingUnits) flushed(epoch uint64, extra int) *Flushed {
	f := p.reply
	if f == nil {
		f = takeReply()
	}
	f.Epoch, f.Extra = epoch, extra
	f.Units = p.takeInto(f.one[:0])
	p.reply, p.main = nil, nil
	return f
}

// takeInto appends the non-empty units to dst in the order they must commit, and
// empties the lists, which are kept for the next flush: dst is the only copy handed
// on. A non-empty main unit is taken too, leaving main nil.
func (p *pendingUnits) takeInto(dst []*unit) []*unit {
	x := p.extra
	if x != nil {
		dst = append(dst, x.closed...)
	}
	if p.main != nil && !p.main.empty() {
		dst = append(dst, p.main)
		p.main = nil
	}
	if x != nil {
		dst = append(dst, x.spill...)
		clear(x.closed)
		clear(x.spill)
		x.closed, x.spill = x.closed[:0], x.spill[:0]
	}
	return dst
}
