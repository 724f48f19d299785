package actors

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/persist"
)

// A live pipeline brings its saved streams and keys back in chunks, sending itself a
// restoreMore after each, so the messages that arrive meanwhile are served between
// chunks instead of waiting seconds behind 100,000 actor spawns. At start it reads
// only the device's index (persist.LoadIndex: generator states and key names); a
// key's valve and windows are read when the key is restored, a chunk's keys at once.
// Whatever a message needs comes back first: a source asked for, or marked, restores
// with its saved generator; a record for a key restores the key with its saved windows
// before it is delivered, never a fresh empty key. A key that comes back after the
// sources that fed it is introduced to them (bind), and each sends it its current
// status on binding, so windows that came due while edged was down fire as they do
// after a full restore. Replay restores everything in its first Started, before the
// first record, so its output stays the same for the same input.

// restoreChunk is how long a live pipeline restores saved streams and keys before it
// serves the messages that arrived meanwhile. Time, not a count: with 100,000 sources
// ticking, the messages between two chunks take tens of milliseconds themselves, and
// smaller chunks would stretch the restore over minutes.
const restoreChunk = 50 * time.Millisecond

// restoreBatch is how many keys' states a live restore reads from the store in one go:
// the clock is read between batches, and a batch takes about a millisecond to restore.
const restoreBatch = 64

// restoreMore asks the pipeline to restore its next chunk.
type restoreMore struct{}

// pendingRestore is the saved state a pipeline has not restored yet, in the store's
// order, which is also the restore order. Keys go first, as in replay: a key costs
// nothing until a source feeds it, while every restored source is ticked each
// watermark interval; the source a message needs is restored at once anyway. The
// index's own sorted slices, with a window definition or stream definition per entry
// beside them, rather than maps: 100,000 entries cost no more than the index did.
type pendingRestore struct {
	index       *persist.DeviceIndex // the keys' states are read from its snapshot
	keyWin      []int32              // the window definition of each of index.Keys; -1: restored or not restored
	streamDef   []int32              // the stream definition of each of index.Streams; -1: likewise
	nextKey     int                  // keys before it are done
	nextStream  int                  // streams before it are done
	keysLeft    int
	streamsLeft int
	perWin      []int              // keys still to restore per window definition
	gauges      []prometheus.Gauge // edged_window_keys_restoring per window definition
	began       time.Time          // when the restore began, for the log
}

func (r *pendingRestore) done() bool { return r.streamsLeft == 0 && r.keysLeft == 0 }

// stream returns the index of a topic's pending stream, or -1.
func (r *pendingRestore) stream(topic string) int {
	if r.streamsLeft == 0 {
		return -1
	}
	i, ok := slices.BinarySearchFunc(r.index.Streams, topic, func(s persist.StreamState, t string) int { return strings.Compare(s.Stream, t) })
	if !ok || r.streamDef[i] < 0 {
		return -1
	}
	return i
}

// key returns the index of a pending key, or -1.
func (r *pendingRestore) key(window, key string) int {
	if r.keysLeft == 0 {
		return -1
	}
	i, ok := slices.BinarySearchFunc(r.index.Keys, persist.KeyName{Window: window, Key: key}, func(a, b persist.KeyName) int {
		return cmp.Or(strings.Compare(a.Window, b.Window), strings.Compare(a.Key, b.Key))
	})
	if !ok || r.keyWin[i] < 0 {
		return -1
	}
	return i
}

// drop forgets the restore once it is done or the pipeline stops, and lets the store
// drop the versions its snapshot kept. A pipeline that stops mid-restore still takes
// the restoreMore it sent itself, and with nothing left it restores nothing: a
// restore going on over the dropped index would panic and have the stopping
// pipeline restarted.
func (r *pendingRestore) drop() {
	if r.index != nil {
		r.index.Close()
	}
	r.index, r.keyWin, r.streamDef = nil, nil, nil
	r.keysLeft, r.streamsLeft = 0, 0
}

// queue takes a device's index for restore: the keys and streams of configured
// windows and streams, whose saved definition is unchanged (or was never saved).
// The index lists the keys that hold windows only: one that holds none was
// passivated, or will be (pipeline_key_passivate.go), and its next reading brings it back.
func (p *pipeline) queue(ix *persist.DeviceIndex) {
	r := &p.pending
	r.index = ix
	byName := map[string]int{}
	deleted := make([]bool, len(p.plan.windows)) // at start: its definition changed
	for i, w := range p.plan.windows {
		byName[w.cfg.Name] = i
		saved := ix.WindowDefs[w.cfg.Name]
		deleted[i] = saved != nil && string(saved) != string(w.def)
	}
	r.keyWin = make([]int32, len(ix.Keys))
	var gone string // the last window warned about: once, not once per key
	for i, k := range ix.Keys {
		wi, ok := byName[k.Window]
		if !ok && k.Window != gone {
			p.log.Warn("ignoring saved state of a window no longer configured", "window", k.Window)
			gone = k.Window
		}
		if !ok || deleted[wi] {
			r.keyWin[i] = -1
			continue
		}
		r.keyWin[i] = int32(wi)
		r.keysLeft++
		r.perWin[wi]++
		p.keyCount[wi]++
	}
	r.streamDef = make([]int32, len(ix.Streams))
	for i, st := range ix.Streams {
		def := p.plan.match(st.Stream)
		switch {
		case def < 0:
			p.log.Warn("ignoring saved state of a stream no longer configured", "stream", st.Stream)
		case st.State.Idle:
			// Asleep until a message, or a restored key it fed, needs it: a gateway's
			// idle topics cost it nothing at a restart (source_passivate.go).
			p.rememberSaved(st.Stream, def, st.State)
			def = -1
		default:
			r.streamsLeft++
		}
		r.streamDef[i] = int32(def)
	}
}

// countKeys publishes the keys still to restore, and the keys, of each window definition.
func (p *pipeline) countKeys() {
	r := &p.pending
	if r.gauges == nil {
		for _, w := range p.plan.windows {
			r.gauges = append(r.gauges, p.env.metrics.KeysRestoring.WithLabelValues(p.plan.device.ID, w.cfg.Name))
		}
	}
	for wi, w := range p.plan.windows {
		// Set, not Inc: a restarted pipeline counts its keys afresh.
		p.env.metrics.Keys.WithLabelValues(p.plan.device.ID, w.cfg.Name).Set(float64(p.keyCount[wi]))
		r.gauges[wi].Set(float64(r.perWin[wi]))
	}
}

// restoreSome restores pending keys, then streams, in their order, for about d, and
// says whether any are left.
func (p *pipeline) restoreSome(ctx actor.Context, d time.Duration) (more bool) {
	r := &p.pending
	until := time.Now().Add(d)
	for r.keysLeft > 0 && time.Now().Before(until) {
		p.restoreKeys(ctx, restoreBatch)
	}
	// The clock is read every 64 restores: a restore takes microseconds.
	for i := 0; r.streamsLeft > 0 && (i%64 != 0 || time.Now().Before(until)); i++ {
		p.restoreNextStream(ctx)
	}
	if r.done() {
		r.drop()
		return false
	}
	return true
}

// restoreAll restores every pending key, then every stream, as one step: replay's
// order, which its output was always produced in.
func (p *pipeline) restoreAll(ctx actor.Context) {
	for p.pending.keysLeft > 0 {
		p.restoreKeys(ctx, 1024)
	}
	p.restoreStreams(ctx)
	p.pending.drop()
}

// restoreKeys reads the next n pending keys from the store and restores them.
func (p *pipeline) restoreKeys(ctx actor.Context, n int) {
	r := &p.pending
	var batch []int
	for ; len(batch) < n && r.nextKey < len(r.keyWin); r.nextKey++ {
		if r.keyWin[r.nextKey] >= 0 {
			batch = append(batch, r.nextKey)
		}
	}
	states := p.loadKeys(batch)
	for i, ki := range batch {
		p.restoreKey(ctx, ki, states[i])
	}
}

// loadKeys reads the saved state of pending keys; nil for one with none readable.
func (p *pipeline) loadKeys(keys []int) []*persist.KeyState {
	names := make([]persist.KeyName, len(keys))
	for i, ki := range keys {
		names[i] = p.pending.index.Keys[ki]
	}
	states, corrupt, err := p.pending.index.LoadKeys(names)
	if err != nil {
		// Without its state a key would count records twice; stop the device loudly.
		panic(fmt.Errorf("loading state of device %s: %w", p.plan.device.ID, err))
	}
	// persist logged each one; what they held starts empty.
	p.env.metrics.Unreadable.WithLabelValues(p.plan.device.ID).Add(float64(len(corrupt)))
	return states
}

// onRestoreMore restores the next chunk and queues the one after it behind the
// messages that arrived meanwhile.
func (p *pipeline) onRestoreMore(ctx actor.Context) {
	if p.pending.index == nil {
		return // dropped: the pipeline is stopping
	}
	if p.restoreSome(ctx, restoreChunk) {
		ctx.Send(ctx.Self(), &restoreMore{})
		return
	}
	p.log.Info("restored every saved stream and key", "took", time.Since(p.pending.began).Round(time.Millisecond))
}

// restoreStreams restores every pending stream at once.
func (p *pipeline) restoreStreams(ctx actor.Context) {
	for p.pending.streamsLeft > 0 {
		p.restoreNextStream(ctx)
	}
}

func (p *pipeline) restoreNextStream(ctx actor.Context) {
	r := &p.pending
	for r.streamDef[r.nextStream] < 0 {
		r.nextStream++
	}
	p.restoreSource(ctx, r.nextStream)
	r.nextStream++
}

// source returns the source actor of a topic: running, restored from its saved
// state, or new.
func (p *pipeline) source(ctx actor.Context, topic string, def int) *sourceHandle {
	if src := p.sources.get(topic); src != nil {
		return src
	}
	if h := p.passivating[topic]; h != nil {
		h.disturbed = true
		h.closing.Store(false)
		p.sources.add(topic, h) // the router sends to it again; it stays
		return h
	}
	if was, ok := p.asleep[topic]; ok {
		return p.resumeSource(ctx, topic, was)
	}
	if i := p.pending.stream(topic); i >= 0 {
		return p.restoreSource(ctx, i)
	}
	return p.spawnSource(ctx, topic, def, nil)
}

// restoreSource starts the source of the pending stream i with its saved state.
func (p *pipeline) restoreSource(ctx actor.Context, i int) *sourceHandle {
	r := &p.pending
	def := r.streamDef[i]
	r.streamDef[i] = -1
	r.streamsLeft--
	st := r.index.Streams[i]
	return p.spawnSource(ctx, st.Stream, int(def), &st.State)
}

// savedKey returns the window actor of a key that has saved state, restoring it if
// it has not been yet; nil for a key with none.
func (p *pipeline) savedKey(ctx actor.Context, id keyID) *keyRef {
	if k := p.keys[id]; k != nil {
		return k
	}
	if ki := p.pending.key(p.plan.windows[id.win].cfg.Name, id.key); ki >= 0 {
		return p.restoreKey(ctx, ki, p.loadKeys([]int{ki})[0])
	}
	return p.reactivate(ctx, id)
}

// restoreKey spawns the window actor of the pending key ki and introduces it to the
// running sources that fed it; those not running yet are told when they start. ks is
// nil if nothing of the key could be read.
func (p *pipeline) restoreKey(ctx actor.Context, ki int, ks *persist.KeyState) *keyRef {
	r := &p.pending
	id := keyID{int(r.keyWin[ki]), r.index.Keys[ki].Key}
	r.keyWin[ki] = -1
	r.keysLeft--
	r.perWin[id.win]--
	r.gauges[id.win].Set(float64(r.perWin[id.win]))
	return p.startKey(ctx, id, ks)
}

// startKey spawns the window actor of a key with its saved state and introduces it
// to the sources that fed it; those not running yet are told when they start. ks is
// nil if nothing of the key could be read.
func (p *pipeline) startKey(ctx actor.Context, id keyID, ks *persist.KeyState) *keyRef {
	k := p.spawnKey(ctx, id, ks)
	if ks != nil {
		for _, in := range ks.Valve {
			if p.feed(in.Input, k) {
				p.bind(ctx, in.Input, k)
			}
		}
	}
	return k
}
