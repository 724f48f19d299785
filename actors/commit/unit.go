package commit

import (
	"sync/atomic"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

// Unit is a piece of one actor's changes since its previous flush. The committer
// writes it atomically, then runs its acks and hands its outputs on.
type Unit struct {
	Stream     *StreamPut
	Valve      *ValvePut
	DropValve  *ValveDrop
	DropStream *StreamDrop
	Def        *DefPut
	Puts       []WindowPut
	Deletes    []persist.WindowKey
	Marks      []MarkPut
	Outbox     []OutboxPut
	Dequeue    []DequeuePut
	Acks       []*Ack
	Bytes      int    // values in outbox and puts, roughly
	Stamp      uint64 // when its first outbox entry was produced; 0: it has none

	// Commits counts the times the committer made the unit durable, for a window that
	// waits for it (the actors' generation); nil until one does. A pooled unit is used
	// again, so the window compares with the count it saw when it sent the unit: the
	// count only grows. It is apart from the unit so that an idle window keeps a
	// counter alive, not the unit and the reply it is part of.
	Commits *atomic.Uint32
	Reply   *Flushed // the pooled reply this is the main unit of (see replyPool); nil if none
	Slab    []byte   // window states are encoded into it, one buffer for the unit's puts

	// An actor's unit of one flush usually holds one ack, one window state or one
	// stream state: a unit from NewUnit keeps them in these, not in an allocation each.
	ackBuf    [1]*Ack
	putBuf    [1]WindowPut
	streamBuf StreamPut
}

// NewUnit returns a unit whose first ack and window state need no allocation.
func NewUnit() *Unit {
	u := &Unit{}
	u.init()
	return u
}

// init readies a new or reset unit; a reused one keeps the buffers reset left it.
func (u *Unit) init() {
	if u.Acks == nil {
		u.Acks = u.ackBuf[:0]
	}
	if u.Puts == nil {
		u.Puts = u.putBuf[:0]
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
func (u *Unit) reset() {
	u.Stream, u.Valve, u.DropValve, u.DropStream, u.Def, u.Bytes, u.Stamp = nil, nil, nil, nil, nil, 0, 0
	u.Puts = emptied(u.Puts)
	u.Deletes = emptied(u.Deletes)
	u.Marks = emptied(u.Marks)
	u.Outbox = emptied(u.Outbox)
	u.Dequeue = emptied(u.Dequeue)
	u.Acks = emptied(u.Acks)
	u.Slab = u.Slab[:0]
	if cap(u.Slab) > maxKeptSlab {
		u.Slab = nil
	}
	// A slice that outgrew its inline buffer left its first element there.
	u.ackBuf, u.putBuf, u.streamBuf = [1]*Ack{}, [1]WindowPut{}, StreamPut{}
}

// emptied clears s and returns it with length 0, or nil if it is too big to keep.
func emptied[T any](s []T) []T {
	clear(s)
	if cap(s) > maxKeptLen {
		return nil
	}
	return s[:0]
}

// SetStream puts the stream's generator state into the unit.
func (u *Unit) SetStream(s StreamPut) {
	u.streamBuf = s
	u.Stream = &u.streamBuf
}

// StreamPut saves a stream's watermark generator.
type StreamPut struct {
	Device, Stream string
	State          watermark.GeneratorState
}

// ValvePut saves a key's valve and its operator's watermark.
type ValvePut struct {
	Device, Window, Key string
	Watermark           int64 // the operator's
	Inputs              []watermark.ValveInput
}

// ValveDrop deletes the saved valve of a passivated key.
type ValveDrop struct{ Device, Window, Key string }

// StreamDrop deletes the saved state of a forgotten stream.
type StreamDrop struct{ Device, Stream string }

// DefPut saves the window definition a key's saved windows were made by.
type DefPut struct {
	Device, Window string
	Def            []byte
}

// WindowPut saves one window of a key.
type WindowPut struct {
	Key   persist.WindowKey
	State []byte
}

// MarkPut saves the dedup mark of a QoS 1 message applied to a key.
type MarkPut struct {
	Window, Key string // window "" marks a source-level effect of stream key
	ID          uint64
}

// OutboxPut enqueues an outbox entry: a result or a late record.
type OutboxPut struct {
	Queue string
	Entry outbox.Entry
}

// DequeuePut deletes an outbox entry that was delivered.
type DequeuePut struct {
	Queue string
	Seq   uint64
}

// Empty reports whether the unit holds nothing to write or acknowledge.
func (u *Unit) Empty() bool {
	return u.Stream == nil && u.Valve == nil && u.DropValve == nil && u.DropStream == nil && u.Def == nil && len(u.Puts) == 0 &&
		len(u.Deletes) == 0 && len(u.Marks) == 0 && len(u.Outbox) == 0 &&
		len(u.Dequeue) == 0 && len(u.Acks) == 0
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
func (u *Unit) changes() int {
	return len(u.Puts) + len(u.Deletes) + len(u.Marks) + len(u.Outbox) + len(u.Dequeue)
}

// Full reports whether the unit reached a bound, given extra changes and bytes its
// actor has not written into it yet.
func (u *Unit) Full(extra, extraBytes int) bool {
	return u.changes()+extra >= maxUnitChanges || u.Bytes+extraBytes >= maxUnitBytes
}

// AddOutbox appends an outbox entry, counting its bytes. The unit's first one stamps
// it with its place in the order outputs were produced, counted by outputs (the
// committer orders an epoch's replies by their stamps).
func (u *Unit) AddOutbox(outputs *atomic.Uint64, o OutboxPut) {
	if u.Stamp == 0 {
		u.Stamp = outputs.Add(1)
	}
	u.Outbox = append(u.Outbox, o)
	u.Bytes += len(o.Entry.Topic) + len(o.Entry.Payload)
}
