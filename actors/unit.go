package actors

import (
	"sync/atomic"

	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

// unit is a piece of one actor's changes since its previous flush. The committer
// writes it atomically, then runs its acks and hands its outputs on.
type unit struct {
	stream  *streamPut
	valve   *valvePut
	def     *defPut
	puts    []windowPut
	deletes []persist.WindowKey
	marks   []markPut
	outbox  []outboxPut
	dequeue []dequeuePut
	acks    []*ack

	committed atomic.Bool // set by the committer once the unit is durable
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
	return u.stream == nil && u.valve == nil && u.def == nil && len(u.puts) == 0 &&
		len(u.deletes) == 0 && len(u.marks) == 0 && len(u.outbox) == 0 &&
		len(u.dequeue) == 0 && len(u.acks) == 0
}

// maxSpill bounds the late records in one unit: each carries its payload, and a unit
// must fit in one Badger transaction however many records were late between flushes.
const maxSpill = 256

// pendingUnits collects an actor's changes until its next flush: the main unit
// (state, results, the records it applied) and, apart from it, units of at most
// maxSpill records that went to an outbox, each holding its records' dedup marks and
// acks, so every record's effect stays atomic with its mark.
type pendingUnits struct {
	main  *unit
	spill []*unit
}

// spillUnit returns a unit with room for one more outbox record.
func (p *pendingUnits) spillUnit() *unit {
	if n := len(p.spill); n > 0 && len(p.spill[n-1].outbox) < maxSpill {
		return p.spill[n-1]
	}
	u := &unit{}
	p.spill = append(p.spill, u)
	return u
}

// last returns the unit that take will return last: it commits after every other
// unit of this flush.
func (p *pendingUnits) last() *unit {
	if n := len(p.spill); n > 0 {
		return p.spill[n-1]
	}
	return p.main
}

// take returns the non-empty units, the main one first, and starts afresh.
func (p *pendingUnits) take() []*unit {
	var out []*unit
	if !p.main.empty() {
		out = append(out, p.main)
		p.main = &unit{}
	}
	if len(p.spill) > 0 {
		out = append(out, p.spill...)
		p.spill = nil
	}
	return out
}
