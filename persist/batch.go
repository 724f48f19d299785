package persist

import "github.com/edged/edged/watermark"

// WindowKey names one window's state: the window definition, the key within it and
// the window start (ms).
type WindowKey struct {
	Device, Window, Key string
	Start               int64
}

type opKind uint8

const (
	opPut opKind = iota
	opDelete
	opMark
	opEnqueue
	opDequeue
)

type op struct {
	kind  opKind
	key   []byte
	val   []byte
	queue string // opEnqueue, opDequeue
	seq   uint64 // opEnqueue; opMark: the mark's fingerprint
}

// Batch collects the changes of many actors for one Commit. Each actor's changes
// form a unit, closed by EndUnit, that commits atomically. Keys and values are copied
// in, so callers may reuse their buffers. A Batch is not safe for concurrent use;
// after a failed Commit it may be committed again (units already written are
// skipped); after a successful one, Reset it or start a new Batch.
type Batch struct {
	s     *Store
	ops   []op
	units []int // end (exclusive) of each closed unit in ops
	done  int   // units already committed
	queue bool  // some op touches the outbox
	// Keys and values are copied into blocks that never move: a batch of 10,000
	// window states holds them once, not beside the arrays an append-grown slice
	// leaves behind (the handed-out slices keep those alive), and growing copies
	// nothing.
	arena []byte   // the block being filled
	full  [][]byte // blocks filled before it in this batch
	free  [][]byte // blocks a Reset kept for the next batch
}

// NewBatch returns an empty batch for s.
func (s *Store) NewBatch() *Batch { return &Batch{s: s} }

// Buffers a Reset keeps: about what a steady commit of a few thousand changes needs.
// A burst's larger ones are dropped rather than held for good, arena blocks included.
const (
	arenaBlock   = 32 << 10
	maxKeptArena = 1 << 20
	maxKeptOps   = 8192
)

// Reset empties a batch whose Commit succeeded, keeping its buffers for the next
// one: Badger has copied what it keeps before Commit returns.
func (b *Batch) Reset() {
	if (len(b.full)+1)*arenaBlock <= maxKeptArena {
		b.full = append(b.full, b.arena)
		for _, blk := range b.full {
			if cap(blk) == arenaBlock && len(b.free) < maxKeptArena/arenaBlock {
				b.free = append(b.free, blk[:0])
			}
		}
	}
	clear(b.full)
	b.full, b.arena = b.full[:0], nil
	clear(b.ops) // the queue names
	b.ops = b.ops[:0]
	if cap(b.ops) > maxKeptOps {
		b.ops = nil
	}
	b.units, b.done, b.queue = b.units[:0], 0, false
}

// Len is the number of changes in the batch.
func (b *Batch) Len() int { return len(b.ops) }

// Full reports whether b holds a transaction's worth of changes (maxTxnOps). A caller
// with more to write commits b and resets it first, so that a burst's changes (10,000
// windows firing at once) pass through one transaction's worth of memory rather than
// all being held at once; they commit in the same transactions either way.
func (b *Batch) Full() bool { return len(b.ops) >= maxTxnOps }

// EndUnit closes the unit of everything added since the previous EndUnit: those
// changes commit together or not at all. Commit closes a trailing open unit itself.
func (b *Batch) EndUnit() {
	last := 0
	if len(b.units) > 0 {
		last = b.units[len(b.units)-1]
	}
	if len(b.ops) > last {
		b.units = append(b.units, len(b.ops))
	}
}

// room makes the block being filled one with n bytes free: a fresh block (a kept
// one if n fits), or one of its own for something larger than a block.
func (b *Batch) room(n int) {
	if cap(b.arena)-len(b.arena) >= n {
		return
	}
	if b.arena != nil {
		b.full = append(b.full, b.arena)
	}
	if k := len(b.free); k > 0 && n <= arenaBlock {
		b.arena = b.free[k-1]
		b.free[k-1] = nil // a burst that drops its blocks must not leave one held here
		b.free = b.free[:k-1]
		return
	}
	b.arena = make([]byte, 0, max(arenaBlock, n))
}

// keep copies p into the arena.
func (b *Batch) keep(p []byte) []byte {
	b.room(len(p))
	start := len(b.arena)
	b.arena = append(b.arena, p...)
	return b.arena[start:len(b.arena):len(b.arena)]
}

// keyRoom is what key makes sure is free: more than any key and encoded valve or
// generator state needs. One that outgrows it still lands whole: append moves the
// block, and the slices handed out before keep the old one alive.
const keyRoom = 1 << 10

// key appends a key (or small value) built by f to the arena.
func (b *Batch) key(f func([]byte) []byte) []byte {
	b.room(keyRoom)
	start := len(b.arena)
	b.arena = f(b.arena)
	return b.arena[start:len(b.arena):len(b.arena)]
}

func (b *Batch) put(key, val []byte) {
	b.ops = append(b.ops, op{kind: opPut, key: key, val: val})
}

// PutWindowDef stores the opaque descriptor of a window definition, so inspect can
// decode the window states and a restart can tell that the config changed.
func (b *Batch) PutWindowDef(device, window string, def []byte) {
	b.put(b.key(func(d []byte) []byte { return defKey(d, device, window) }), b.keep(def))
}

// PutWindow stores one window's opaque state (encoded by windows/).
func (b *Batch) PutWindow(k WindowKey, state []byte) {
	b.put(b.key(func(d []byte) []byte { return windowKey(d, k) }), b.keep(state))
}

// DeleteWindow removes one window's state (purged or merged away).
func (b *Batch) DeleteWindow(k WindowKey) {
	b.ops = append(b.ops, op{kind: opDelete, key: b.key(func(d []byte) []byte { return windowKey(d, k) })})
}

// PutValve stores the valve of one window actor and its operator's watermark.
func (b *Batch) PutValve(device, window, key string, wm int64, inputs []watermark.ValveInput) {
	k := b.key(func(d []byte) []byte { return valveKey(d, device, window, key) })
	b.put(k, b.key(func(d []byte) []byte { return appendValve(d, wm, inputs) }))
}

// DeleteValve removes the valve of one window actor (its key was passivated).
func (b *Batch) DeleteValve(device, window, key string) {
	b.ops = append(b.ops, op{kind: opDelete, key: b.key(func(d []byte) []byte { return valveKey(d, device, window, key) })})
}

// PutStream stores the watermark generator state of one stream.
func (b *Batch) PutStream(device, stream string, st watermark.GeneratorState) {
	k := b.key(func(d []byte) []byte { return streamKey(d, device, stream) })
	b.put(k, b.key(func(d []byte) []byte { return appendGeneratorState(d, st) }))
}

// DeleteStream removes the generator state of one stream (it was forgotten).
func (b *Batch) DeleteStream(device, stream string) {
	b.ops = append(b.ops, op{kind: opDelete, key: b.key(func(d []byte) []byte { return streamKey(d, device, stream) })})
}

// PutUptime stores how long (ms) a device has run, over all its runs, as of this
// batch. It is on the clock of the extrapolation bases in the streams' states it
// saves, so a restart can work out how far an idle stream's watermark moved since
// its state was saved (watermark.GeneratorState.Drifted) without counting the
// time edged was down.
func (b *Batch) PutUptime(device string, ms int64) {
	k := b.key(func(d []byte) []byte { return uptimeKey(d, device) })
	b.put(k, b.key(func(d []byte) []byte { return appendCounter(d, uint64(ms)) }))
}

// PutMark records that message id was applied to (window, key); the mark expires
// after the store's DedupTTL (marks_segments.go).
func (b *Batch) PutMark(device, window, key string, id uint64) {
	b.ops = append(b.ops, op{kind: opMark, seq: markFingerprint(device, window, key, id)})
}

// Enqueue appends payload to an outbox queue and returns its sequence number, taken
// from a persisted per-queue counter: strictly increasing, also across restarts, with
// gaps where a batch was never committed. A queue needs one writer that commits its
// batches in the order it made them; Commit rejects a batch whose sequence numbers
// are not above every one already committed to the queue.
func (b *Batch) Enqueue(queue string, payload []byte) uint64 {
	seq := b.s.allocSeq(queue)
	k := b.key(func(d []byte) []byte { return outboxKey(d, queue, seq) })
	b.ops = append(b.ops, op{kind: opEnqueue, key: k, val: b.keep(payload), queue: queue, seq: seq})
	b.queue = true
	return seq
}

// Dequeue removes one outbox entry (delivered). Removing an absent entry is a no-op.
func (b *Batch) Dequeue(queue string, seq uint64) {
	k := b.key(func(d []byte) []byte { return outboxKey(d, queue, seq) })
	b.ops = append(b.ops, op{kind: opDequeue, key: k, queue: queue})
	b.queue = true
}
