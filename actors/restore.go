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
	"github.com/edged/edged/watermark"
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

// restoreBatch is how many keys' states are read from the store in one go: the clock
// is read between batches, and a batch takes about a millisecond to restore.
const restoreBatch = 64

// restoreMore asks the pipeline to restore its next chunk.
type restoreMore struct{}

// pendingRestore is the saved state a pipeline has not restored yet, in the store's
// order, which is also the restore order. Keys go first, as in replay: a key costs
// nothing until a source feeds it, while every restored source is ticked each
// watermark interval; the source a message needs is restored at once anyway. Sorted
// slices rather than maps: 100,000 entries are built in one allocation each.
type pendingRestore struct {
	index       *persist.DeviceIndex // the keys' states are read from its snapshot
	streams     []pendingStream      // by topic
	keys        []pendingKey         // by window name, then key
	winNames    []string             // window definition names, by index
	nextStream  int                  // streams before it are restored
	nextKey     int                  // keys before it are restored
	streamsLeft int
	keysLeft    int
	perWin      []int              // keys still to restore per window definition
	gauges      []prometheus.Gauge // edged_window_keys_restoring per window definition
	began       time.Time          // when the restore began, for the log
}

type pendingStream struct {
	topic string
	def   int
	state watermark.GeneratorState
	done  bool
}

type pendingKey struct {
	id   keyID
	done bool
}

func (r *pendingRestore) done() bool { return r.streamsLeft == 0 && r.keysLeft == 0 }

// stream returns the pending stream of a topic, or nil.
func (r *pendingRestore) stream(topic string) *pendingStream {
	i, ok := slices.BinarySearchFunc(r.streams, topic, func(s pendingStream, t string) int { return strings.Compare(s.topic, t) })
	if !ok || r.streams[i].done {
		return nil
	}
	return &r.streams[i]
}

// key returns the pending key of id, or nil.
func (r *pendingRestore) key(id keyID) *pendingKey {
	i, ok := slices.BinarySearchFunc(r.keys, id, func(k pendingKey, id keyID) int {
		return cmp.Or(strings.Compare(r.winNames[k.id.win], r.winNames[id.win]), strings.Compare(k.id.key, id.key))
	})
	if !ok || r.keys[i].done {
		return nil
	}
	return &r.keys[i]
}

// drop forgets the restore once it is done or the pipeline stops, and lets the store
// drop the versions its snapshot kept.
func (r *pendingRestore) drop() {
	if r.index != nil {
		r.index.Close()
	}
	r.index, r.streams, r.keys = nil, nil, nil
}

// queue takes a device's index for restore: the keys and streams of configured
// windows and streams, whose saved definition is unchanged (or was never saved).
func (p *pipeline) queue(ix *persist.DeviceIndex) {
	r := &p.pending
	r.index = ix
	byName := map[string]int{}
	for i, w := range p.plan.windows {
		byName[w.cfg.Name] = i
		r.winNames = append(r.winNames, w.cfg.Name)
	}
	r.keys = make([]pendingKey, 0, len(ix.Keys))
	var gone string // the last window warned about, once per window
	for _, k := range ix.Keys {
		wi, ok := byName[k.Window]
		if !ok {
			if k.Window != gone {
				p.log.Warn("ignoring saved state of a window no longer configured", "window", k.Window)
				gone = k.Window
			}
			continue
		}
		if saved := ix.WindowDefs[k.Window]; saved != nil && string(saved) != string(p.plan.windows[wi].def) {
			continue // deleted at start
		}
		r.keys = append(r.keys, pendingKey{id: keyID{wi, k.Key}})
		r.perWin[wi]++
		p.keyCount[wi]++
	}
	r.keysLeft = len(r.keys)
	r.streams = make([]pendingStream, 0, len(ix.Streams))
	for _, st := range ix.Streams {
		def := p.plan.match(st.Stream)
		if def < 0 {
			p.log.Warn("ignoring saved state of a stream no longer configured", "stream", st.Stream)
			continue
		}
		r.streams = append(r.streams, pendingStream{topic: st.Stream, def: def, state: st.State})
	}
	r.streamsLeft = len(r.streams)
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
		if ps := &r.streams[r.nextStream]; !ps.done {
			p.restoreSource(ctx, ps)
		}
		r.nextStream++
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
	var batch []*pendingKey
	for ; len(batch) < n && r.nextKey < len(r.keys); r.nextKey++ {
		if pk := &r.keys[r.nextKey]; !pk.done {
			batch = append(batch, pk)
		}
	}
	states := p.loadKeys(batch)
	for i, pk := range batch {
		p.restoreKey(ctx, pk, states[i])
	}
}

// loadKeys reads the saved state of keys; nil for one with none readable.
func (p *pipeline) loadKeys(keys []*pendingKey) []*persist.KeyState {
	names := make([]persist.KeyName, len(keys))
	for i, pk := range keys {
		names[i] = persist.KeyName{Window: p.pending.winNames[pk.id.win], Key: pk.id.key}
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
	if p.restoreSome(ctx, restoreChunk) {
		ctx.Send(ctx.Self(), &restoreMore{})
		return
	}
	p.log.Info("restored every saved stream and key", "took", time.Since(p.pending.began).Round(time.Millisecond))
}

// restoreStreams restores every pending stream at once.
func (p *pipeline) restoreStreams(ctx actor.Context) {
	r := &p.pending
	for ; r.streamsLeft > 0; r.nextStream++ {
		if ps := &r.streams[r.nextStream]; !ps.done {
			p.restoreSource(ctx, ps)
		}
	}
}

// source returns the source actor of a topic: running, restored from its saved
// state, or new.
func (p *pipeline) source(ctx actor.Context, topic string, def int) *sourceHandle {
	if src := p.sources[topic]; src != nil {
		return src
	}
	if ps := p.pending.stream(topic); ps != nil {
		return p.restoreSource(ctx, ps)
	}
	return p.spawnSource(ctx, topic, def, nil)
}

func (p *pipeline) restoreSource(ctx actor.Context, ps *pendingStream) *sourceHandle {
	ps.done = true
	p.pending.streamsLeft--
	st := ps.state
	return p.spawnSource(ctx, ps.topic, ps.def, &st)
}

// savedKey returns the window actor of a key that has saved state, restoring it if
// it has not been yet; nil for a key with none.
func (p *pipeline) savedKey(ctx actor.Context, id keyID) *keyRef {
	if k := p.keys[id]; k != nil {
		return k
	}
	if pk := p.pending.key(id); pk != nil {
		return p.restoreKey(ctx, pk, p.loadKeys([]*pendingKey{pk})[0])
	}
	return nil
}

// restoreKey spawns a saved key's window actor and introduces it to the running
// sources that fed it; those not running yet are told when they start. ks is nil if
// nothing of the key could be read.
func (p *pipeline) restoreKey(ctx actor.Context, pk *pendingKey, ks *persist.KeyState) *keyRef {
	r := &p.pending
	pk.done = true
	r.keysLeft--
	id := pk.id
	r.perWin[id.win]--
	r.gauges[id.win].Set(float64(r.perWin[id.win]))
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
