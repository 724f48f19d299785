package uplink

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
)

// upHarness runs one upstream actor over a real Badger store, with a fake committer
// that applies Delivered the way the device's committer does.
type upHarness struct {
	t         testing.TB
	store     *persist.Store
	env       *env
	system    *actor.ActorSystem
	pid       *actor.PID
	committer *actor.PID
	link      *Link // owns the blocked flag (and, with a broker, the connection)
}

// newUpHarness opens the store in dir and spawns the actor. sync runs every actor on
// the sending goroutine (as replay does), so a Send returns after all it caused.
func newUpHarness(t testing.TB, dir string, cfg configs.Upstream, conn upstreamConn, link *Link, sync bool) *upHarness {
	t.Helper()
	store, err := persist.Open(persist.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	if link == nil {
		link = &Link{metrics: newTestMetrics()}
	}
	props := actor.PropsFromProducer
	if sync {
		d := actor.NewSynchronizedDispatcher(100)
		props = func(p actor.Producer, opts ...actor.PropsOption) *actor.Props {
			return actor.PropsFromProducer(p, append(opts, actor.WithDispatcher(d))...)
		}
	}
	e := &env{store: store, metrics: link.metrics, log: log}
	h := &upHarness{t: t, store: store, env: e, link: link}
	h.system = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return log }))
	h.committer = h.system.Root.Spawn(props(func() actor.Actor { return &upFakeCommitter{t: t, store: store} }))
	h.pid = h.system.Root.Spawn(props(func() actor.Actor { return newUpstream(e, cfg, conn, &link.blocked) }))
	return h
}

// newTestMetrics are the uplink's series, unregistered.
func newTestMetrics() *Metrics {
	return &Metrics{
		Connected:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "connected"}),
		Sent:          prometheus.NewCounter(prometheus.CounterOpts{Name: "sent"}),
		Dropped:       prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dropped"}, []string{"policy"}),
		Duplicates:    prometheus.NewCounter(prometheus.CounterOpts{Name: "duplicates"}),
		Refused:       prometheus.NewCounterVec(prometheus.CounterOpts{Name: "refused"}, []string{"output"}),
		OutboxRecords: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "records"}, []string{"queue"}),
		OutboxBytes:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "bytes"}, []string{"queue"}),
		OutboxOldest:  prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "oldest"}, []string{"queue"}),
	}
}

// close stops the actors and the store, as a crash of edged would leave the directory
// (minus Badger's clean close, which a kill -9 skips but Badger's log replays).
func (h *upHarness) close() {
	h.system.Root.StopFuture(h.pid).Wait()
	h.system.Shutdown()
	if err := h.store.Close(); err != nil {
		h.t.Error(err)
	}
}

// enqueue commits one late record per stream name to device's upstream queue, as the
// device's committer does, then tells the actor. Each payload carries its index i as
// "n" and received_at at.
func (h *upHarness) enqueue(device string, streams []string, first int, at int64, announce bool) []outbox.Entry {
	h.t.Helper()
	q := outbox.UpstreamQueue(device)
	b := h.store.NewBatch()
	// Real devices have state besides their outbox; the actor finds backlogs by it.
	b.PutStream(device, "s", watermark.GeneratorState{})
	entries := make([]outbox.Entry, len(streams))
	for i, s := range streams {
		entries[i] = outbox.Entry{Topic: "late/" + s, QoS: 1,
			Payload: fmt.Appendf(nil, `{"device":%q,"stream":%q,"n":%d,"received_at":%d}`, device, s, first+i, at)}
		entries[i].Seq = b.Enqueue(q, entries[i].Encode())
	}
	if err := h.store.Commit(b); err != nil {
		h.t.Fatal(err)
	}
	if announce {
		h.system.Root.Send(h.pid, &outbox.Enqueued{Queue: q, Entries: entries, ReplyTo: h.committer})
	}
	return entries
}

// enqueueRounds enqueues rounds of ten records for each device in turn, numbering
// each device's records on from n[device].
func (h *upHarness) enqueueRounds(devices []string, n map[string]int, rounds int) {
	h.t.Helper()
	ten := slices.Repeat([]string{"s"}, 10)
	for range rounds {
		for _, d := range devices {
			h.enqueue(d, ten, n[d], 0, true)
			n[d] += 10
		}
	}
}

func (h *upHarness) tick(now int64) { h.system.Root.Send(h.pid, &outbox.Tick{Now: now}) }

// seqs lists the entries left in a queue.
func (h *upHarness) seqs(queue string) []uint64 {
	h.t.Helper()
	entries, err := h.store.Peek(queue, 0, 1<<20)
	if err != nil {
		h.t.Fatal(err)
	}
	out := make([]uint64, len(entries))
	for i, e := range entries {
		out[i] = e.Seq
	}
	return out
}

// upFakeCommitter deletes delivered entries at once (the real one waits for its next commit).
type upFakeCommitter struct {
	t     testing.TB
	store *persist.Store
}

func (c *upFakeCommitter) Receive(ctx actor.Context) {
	if m, ok := ctx.Message().(*outbox.Delivered); ok {
		b := c.store.NewBatch()
		for _, s := range m.Seqs {
			b.Dequeue(m.Queue, s)
		}
		if err := c.store.Commit(b); err != nil {
			c.t.Error(err)
		}
	}
}

// upFakeConn is an uplink that records what is published, rendered as the MQTT
// transport renders it under the prefix upConfig sets; it acknowledges at once
// unless hold is set.
type upFakeConn struct {
	mu   sync.Mutex
	up   bool
	hold bool // keep acknowledgements back in held
	fail int  // refuse this many publishes
	held []func(error)
	msgs []upMessage
}

type upMessage struct {
	topic string
	array bool
	ids   []string
}

func (f *upFakeConn) Connected() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.up
}

func (f *upFakeConn) setUp(up bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.up = up
}

func (f *upFakeConn) publish(b upstreamBatch, done func(error)) {
	topic, payload := upstreamTopic("cloud/gw", b.device, b.topic), upstreamPayload(b.device, b.entries)
	f.mu.Lock()
	var err error
	if !mqtt.ValidTopicName(topic) { // as the real client refuses it
		err = refusedTopic(mqtt.ErrInvalidTopic, len(b.entries))
	} else if f.fail > 0 {
		f.fail--
		err = errUpstreamDown
	} else {
		f.msgs = append(f.msgs, upMessage{topic: topic, array: payload[0] == '[', ids: upRecordIDs(payload)})
	}
	hold := f.hold && err == nil
	if hold {
		f.held = append(f.held, done)
	}
	f.mu.Unlock()
	if !hold {
		done(err)
	}
}

// release acknowledges the held publishes and stops holding.
func (f *upFakeConn) release() {
	f.mu.Lock()
	held := f.held
	f.held, f.hold = nil, false
	f.mu.Unlock()
	for _, done := range held {
		done(nil)
	}
}

func (f *upFakeConn) messages() []upMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]upMessage(nil), f.msgs...)
}

func (f *upFakeConn) records() int {
	n := 0
	for _, m := range f.messages() {
		n += len(m.ids)
	}
	return n
}

// upRecordIDs decodes an upstream message (one record, or an array of them) into the
// ids of its records; a malformed message yields "malformed".
func upRecordIDs(payload []byte) []string {
	type rec struct {
		ID string `json:"id"`
	}
	var recs []rec
	if strings.HasPrefix(string(payload), "[") {
		if json.Unmarshal(payload, &recs) != nil {
			return []string{"malformed"}
		}
	} else {
		var r rec
		if json.Unmarshal(payload, &r) != nil {
			return []string{"malformed"}
		}
		recs = []rec{r}
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	return ids
}

// upIDSeq splits "<device>-<seq>".
func upIDSeq(t testing.TB, id string) (string, uint64) {
	t.Helper()
	i := strings.LastIndexByte(id, '-')
	seq, err := strconv.ParseUint(id[i+1:], 10, 64)
	if i < 0 || err != nil {
		t.Fatalf("record id %q is not <device>-<seq>", id)
	}
	return id[:i], seq
}

// upEventually polls cond until it holds or the deadline passes.
func upEventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
