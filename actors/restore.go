package actors

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

// A live pipeline brings its saved streams and keys back in chunks, sending itself a
// restoreMore after each, so the messages that arrive meanwhile are served between
// chunks instead of waiting seconds behind 100,000 actor spawns. Whatever a message
// needs comes back first: a source asked for, or marked, restores with its saved
// generator; a record for a key restores the key with its saved windows before it is
// delivered, never a fresh empty key. A key that comes back after the sources that fed
// it is introduced to them (bind), and each sends it its current status on binding,
// so windows that came due while edged was down fire as they do after a full restore.
// Replay restores everything in its first Started, before the first record, so its
// output stays the same for the same input.

// restoreChunk is how long a live pipeline restores saved streams and keys before it
// serves the messages that arrived meanwhile. Time, not a count: with 100,000 sources
// ticking, the messages between two chunks take tens of milliseconds themselves, and
// smaller chunks would stretch the restore over minutes.
const restoreChunk = 50 * time.Millisecond

// restoreMore asks the pipeline to restore its next chunk.
type restoreMore struct{}

// pendingRestore is the saved state a pipeline has not restored yet. Keys go first,
// as in replay: a key costs nothing until a source feeds it, while every restored
// source is ticked each watermark interval; the source a message needs is restored
// at once anyway.
type pendingRestore struct {
	streams  map[string]*pendingStream
	topics   []string // restore order
	keys     map[keyID]*persist.KeyState
	keyOrder []keyID            // restore order
	perWin   []int              // keys still to restore per window definition
	gauges   []prometheus.Gauge // edged_window_keys_restoring per window definition
	began    time.Time          // when the restore began, for the log
}

type pendingStream struct {
	def   int
	state watermark.GeneratorState
}

func (r *pendingRestore) done() bool { return len(r.streams) == 0 && len(r.keys) == 0 }

// queueStream and queueKey add saved state to restore.
func (r *pendingRestore) queueStream(topic string, def int, st watermark.GeneratorState) {
	r.streams[topic] = &pendingStream{def: def, state: st}
	r.topics = append(r.topics, topic)
}

func (r *pendingRestore) queueKey(id keyID, ks *persist.KeyState) {
	r.keys[id] = ks
	r.keyOrder = append(r.keyOrder, id)
	r.perWin[id.win]++
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
	// The clock is read every 64 restores: a restore takes microseconds.
	for i := 0; len(r.keyOrder) > 0 && (i%64 != 0 || time.Now().Before(until)); i++ {
		id := r.keyOrder[0]
		r.keyOrder = r.keyOrder[1:]
		if ks := r.keys[id]; ks != nil {
			p.restoreKey(ctx, id, ks)
		}
	}
	for i := 0; len(r.topics) > 0 && (i%64 != 0 || time.Now().Before(until)); i++ {
		topic := r.topics[0]
		r.topics = r.topics[1:]
		if ps := r.streams[topic]; ps != nil {
			p.restoreSource(ctx, topic, ps)
		}
	}
	if r.done() {
		r.topics, r.keyOrder = nil, nil // drop the backing arrays
		return false
	}
	return true
}

// restoreAll restores every pending key, then every stream, as one step: replay's
// order, which its output was always produced in.
func (p *pipeline) restoreAll(ctx actor.Context) {
	r := &p.pending
	for _, id := range r.keyOrder {
		p.restoreKey(ctx, id, r.keys[id])
	}
	for _, topic := range r.topics {
		p.restoreSource(ctx, topic, r.streams[topic])
	}
	r.topics, r.keyOrder = nil, nil
}

// onRestoreMore restores the next chunk and queues the one after it behind the
// messages that arrived meanwhile.
func (p *pipeline) onRestoreMore(ctx actor.Context) {
	if p.restoreSome(ctx, restoreChunk) {
		ctx.Send(ctx.Self(), &restoreMore{})
		return
	}
	p.log.Info("restored every saved stream and key", "took", time.Since(p.pending.began).Round(time.Millisecond))
}

// restoreStreams restores every pending stream at once.
func (p *pipeline) restoreStreams(ctx actor.Context) {
	for _, topic := range p.pending.topics {
		if ps := p.pending.streams[topic]; ps != nil {
			p.restoreSource(ctx, topic, ps)
		}
	}
	p.pending.topics = nil
}

// source returns the source actor of a topic: running, restored from its saved
// state, or new.
func (p *pipeline) source(ctx actor.Context, topic string, def int) *sourceHandle {
	if src := p.sources[topic]; src != nil {
		return src
	}
	if ps := p.pending.streams[topic]; ps != nil {
		return p.restoreSource(ctx, topic, ps)
	}
	return p.spawnSource(ctx, topic, def, nil)
}

func (p *pipeline) restoreSource(ctx actor.Context, topic string, ps *pendingStream) *sourceHandle {
	delete(p.pending.streams, topic)
	return p.spawnSource(ctx, topic, ps.def, &ps.state)
}

// savedKey returns the window actor of a key that has saved state, restoring it if
// it has not been yet; nil for a key with none.
func (p *pipeline) savedKey(ctx actor.Context, id keyID) *keyRef {
	if k := p.keys[id]; k != nil {
		return k
	}
	if ks := p.pending.keys[id]; ks != nil {
		return p.restoreKey(ctx, id, ks)
	}
	return nil
}

// restoreKey spawns a saved key's window actor and introduces it to the running
// sources that fed it; those not running yet are told when they start.
func (p *pipeline) restoreKey(ctx actor.Context, id keyID, ks *persist.KeyState) *keyRef {
	delete(p.pending.keys, id)
	p.pending.perWin[id.win]--
	p.pending.gauges[id.win].Set(float64(p.pending.perWin[id.win]))
	k := p.spawnKey(ctx, id, ks)
	for _, in := range ks.Valve {
		if p.feed(in.Input, k) {
			p.bind(ctx, in.Input, k)
		}
	}
	return k
}
