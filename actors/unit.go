package actors

import (
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

// unit is one actor's changes since its previous flush. The committer writes it in
// one atomic piece, then runs its acks and hands its outputs on.
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
