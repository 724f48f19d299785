package actors

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/cespare/xxhash/v2"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// source is the actor of one concrete sensor topic: it decodes payloads, owns the
// stream's watermark generator, and sends records and watermark changes to the window
// actors of their keys (through the pipeline until it has a key's address).
type source struct {
	*sourceDef
	handle *sourceHandle

	bound     smallMap[keyID, *boundKey] // window actors this stream feeds
	lastBound *boundKey                  // the one boundTo found last
	routed    map[keyID]uint64           // keys without an address: records routed through the pipeline; nil when none
	fed       []*boundKey                // the same, in binding order: watermarks go to each
	touched   []*boundKey                // sent something since the last flush
	now       int64                      // the latest processing time seen

	gen      *watermark.Generator
	ext      mqtt.Extractor  // by value: one allocation fewer per topic
	reading  *mqtt.Reading   // while it handles an Inbound, else nil: see readings
	arena    []windows.Value // values of records with more than inlineValues are cut from here
	nextEmit int64
	restored *watermark.GeneratorState
	reload   bool // a restart after a panic: state comes from the store
	started  bool
	dirty    bool // the status changed since the last flush, other than by time alone (pipeline_uptime.go)
	pending  pendingUnits
	badLog   burstLog

	// The idleness last sent to every window actor fed and their next timer after
	// the watermark sent with it (source_quiet_watermark.go); the idleness and
	// extrapolation base last saved (pipeline_uptime.go).
	sentIdle, savedIdle bool
	nextDue             int64
	saved               watermark.GeneratorState // the state last saved, as the generator gave it (source_send.go)

	stats  *status.Topic // the topic's counters and gauges
	delays *status.Delays

	// Passivation (source_passivate.go): the commit count of the last flush that
	// took units and the count it saw then, and whether a sourceQuiet is out.
	flushCommits *atomic.Uint32
	flushSeen    uint32
	quietSent    bool
	received     uint64 // messages taken from the router, against sourceHandle.sent
}

// sourceDef is what the source actors of one stream definition in one pipeline
// share: held once, not in each of a gateway's thousands of topics.
type sourceDef struct {
	env       *env
	device    string
	plan      *streamPlan
	committer *actor.PID
	ticked    *atomic.Int64 // the time of the pipeline's last source tick (source_sleep.go)
	uptime    *uptime       // the pipeline's: idle states are saved on it
}

// stream is the concrete topic the source reads: its statistics hold the name, so the
// source need not.
func (s *source) stream() string { return s.stats.Name() }

func newSource(def *sourceDef, topic string, h *sourceHandle, restored *watermark.GeneratorState, reload bool) *source {
	e, p := def.env, def.plan
	st := e.metrics.Streams.Topic(def.device, p.cfg.Name, topic)
	return &source{
		sourceDef: def, handle: h, nextDue: watermark.Min,
		gen:      watermark.NewGenerator(p.wm),
		ext:      p.ext.Fork(),
		restored: restored,
		reload:   reload,
		badLog:   burstLog{every: 10_000},
		stats:    st,
		delays:   e.metrics.Streams.Delays(st, p.wm),
	}
}

// Reincarnate is the source that takes over after a panic: it reloads its state from
// the store, since what it had in memory since the last commit was never acknowledged.
func (s *source) Reincarnate() actor.Actor {
	n := newSource(s.sourceDef, s.stream(), s.handle, nil, true)
	n.received = s.received // the router's count goes on
	return n
}

func (s *source) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		if s.reload {
			s.awake() // the failed incarnation's sleep is no promise of this one's
			s.loadSaved()
			ctx.Send(ctx.Parent(), &sourceRestarted{stream: s.stream()})
		}
	case *keyBound:
		s.wake(ctx)
		s.onKeyBound(ctx, m)
	case *Inbound:
		s.received++
		s.wake(ctx)
		s.onInbound(ctx, m)
	case *Tick:
		s.onTick(ctx, m.Now)
	case *MarkWatermark:
		s.wake(ctx)
		s.begin(m.At)
		s.gen.Mark(m.Watermark, m.At)
		s.emit(ctx, m.At, false)
	case *Flush:
		s.catchUp(ctx) // what it saves is what a ticked source would have
		s.onFlush(ctx, m)
	case *unbind:
		s.catchUp(ctx)
		s.onUnbind(ctx, m)
	case *passivateSource:
		s.catchUp(ctx)
		s.onPassivateSource(ctx)
	}
}

func (s *source) loadSaved() {
	st, ok, err := s.env.store.LoadStream(s.device, s.stream())
	if err != nil {
		panic(err)
	}
	if ok {
		s.restored = &st
	}
}

// begin notes processing time; the first time, it applies saved state, so that
// downtime is not mistaken for idleness.
func (s *source) begin(now int64) {
	s.now = max(s.now, now)
	if s.started {
		return
	}
	s.started = true
	s.nextEmit = now
	if s.restored != nil {
		s.gen.Restore(*s.restored, now)
		s.saved = s.gen.State()
		s.restored = nil
	}
}

func (s *source) onInbound(ctx actor.Context, m *Inbound) {
	s.reading = readings.Get().(*mqtt.Reading)
	defer s.putReading()
	s.begin(m.At)
	s.handle.markDirty()
	var id uint64 // only QoS 1 messages are redelivered, so only they need one
	if m.QoS > 0 {
		id = messageID(m.Topic, m.Payload)
	}
	if err := s.ext.Extract(m.Topic, m.Payload, s.reading); err != nil {
		s.stats.DecodeErrors.Inc()
		s.badLog.log(s.env.log, m.At, "undecodable payload", "device", s.device, "stream", s.stream(), "err", err)
		s.reject(m, id, &lateRecord{Reason: status.Undecodable, Error: err.Error()})
		return
	}
	r := s.reading
	handedOff := false // whether the window actors (or the rejection) now hold the ack
	if r.HasTS {
		switch s.gen.Observe(r.TS, m.At) {
		case watermark.Future:
			s.reject(m, id, &lateRecord{Reason: status.Future, TS: r.TS, Key: r.Key, Watermark: s.gen.State().Watermark})
			handedOff = true
		case watermark.Reactivated:
			s.emit(ctx, m.At, false) // the stream's keys must see it active before its record
			fallthrough
		default:
			s.stats.Records.Inc()
			s.delays.Record(s.gen.State().Max, r.TS)
			handedOff = s.forward(ctx, m, id)
		}
	}
	if r.HasWatermark {
		s.gen.Mark(r.Watermark, m.At)
		s.emit(ctx, m.At, false)
	}
	if !handedOff {
		// A marker-only message, or a stream no window reads: its effect is the
		// generator state, committed with the next flush.
		u := s.pending.Unit()
		u.Acks = append(u.Acks, m.ack)
	}
}

// reject sends a record that cannot enter any window to the late output and keeps
// its ack until that is durable.
func (s *source) reject(m *Inbound, id uint64, l *lateRecord) {
	if m.Duplicate {
		if seen, err := s.env.store.HasMark(s.device, "", s.stream(), id); err == nil && seen {
			s.env.metrics.Duplicates.WithLabelValues(s.device).Inc()
			u := s.pending.Unit()
			u.Acks = append(u.Acks, m.ack)
			return
		}
	}
	s.env.metrics.Late.WithLabelValues(s.device, s.stream(), l.Reason).Inc()
	l.Device, l.Stream, l.ReceivedAt, l.Payload = s.device, s.stream(), m.At, m.Payload
	if s.env.late == nil {
		s.env.metrics.UnshippedLate.WithLabelValues(s.device).Inc()
		u := s.pending.Unit()
		u.Acks = append(u.Acks, m.ack)
		return
	}
	u := s.pending.SpillUnit()
	u.AddOutbox(&s.env.outputs, commit.OutboxPut{
		Queue: outbox.UpstreamQueue(s.device),
		Entry: outboxEntry{Topic: "late/" + s.stream(), QoS: 1, Payload: s.env.produced(appendLate(nil, l))},
	})
	if m.QoS > 0 {
		u.Marks = append(u.Marks, commit.MarkPut{Key: s.stream(), ID: id})
	}
	u.Acks = append(u.Acks, m.ack)
}

// readings are the Readings sources decode into, each only while it handles an
// Inbound: an idle source, most of a gateway's, holds none.
var readings = sync.Pool{New: func() any { return new(mqtt.Reading) }}

func (s *source) putReading() {
	readings.Put(s.reading)
	s.reading = nil
}

// arenaChunk is how many values one allocation serves.
const arenaChunk = 32

// values converts a reading's values into inline (a record's own buffer) if they fit,
// else into a slice cut from the arena.
func (s *source) values(inline []windows.Value, vs []mqtt.Value) []windows.Value {
	out := inline[:0:cap(inline)]
	if len(vs) > cap(out) {
		if cap(s.arena)-len(s.arena) < len(vs) {
			// Small chunks: a gateway has thousands of sources, each holding one.
			s.arena = make([]windows.Value, 0, max(arenaChunk, len(vs)))
		}
		n := len(s.arena)
		s.arena = s.arena[:n+len(vs)]
		out = s.arena[n : n : n+len(vs)]
	}
	for _, v := range vs {
		out = append(out, windows.Value{Num: v.Num, Str: v.Str, Kind: windowsKind(v.Kind)})
	}
	return out
}

func windowsKind(k mqtt.ValueKind) windows.ValueKind {
	switch k {
	case mqtt.ValueNumber:
		return windows.Number
	case mqtt.ValueString:
		return windows.String
	}
	return windows.Missing
}

func (s *source) status() watermark.Status { return s.gen.Status() }

func (s *source) onTick(ctx actor.Context, now int64) {
	s.begin(now)
	if now < s.nextEmit {
		return
	}
	s.nextEmit = now + s.plan.interval
	s.emit(ctx, now, true)
	s.sleep(now)
	s.maybeQuiet(ctx)
}

// messageID identifies a message by content, so a broker's redelivery after a crash
// can be recognised. Two identical payloads on one topic count as one reading.
func messageID(topic string, payload []byte) uint64 {
	return xxhash.Sum64(payload) ^ bits.RotateLeft64(xxhash.Sum64String(topic), 17)
}
