package actors

import (
	"math"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/watermark"
)

// The pipeline's side of a source's passivation: it waits out a quiet source's
// delay, takes it out of the router's index, stops it, hands it back to a message
// that meets it passivating, and remembers a passivated source until its stream is
// forgotten. source_passivate.go has the design and the source's side.

// quietTopic is a quiet source waiting out its passivation delay.
type quietTopic struct {
	topic string
	h     *sourceHandle
}

// passivated is what a pipeline remembers of a passivated source. fromIndex: it was
// idle when edged stopped and has not run since (pipeline_restore.go): it comes back as after
// a restart, not from a passivation.
type passivated struct {
	rank        uint64 // 0 for fromIndex: it gets a new one
	def         int
	fromIndex   bool
	advancing   bool  // counted in sourceSchedule.advancing (pipeline_uptime.go)
	lastArrival int64 // of its last record: it is forgotten stream_retention after
}

// sourceDelay is how long a quiet source of stream definition def stays.
func (p *pipeline) sourceDelay(def int) int64 {
	if d := p.env.passivateSourceDelay; d != nil {
		return d(def)
	}
	return p.plan.streams[def].wm.IdleTimeout
}

func (p *pipeline) onSourceQuiet(m *sourceQuiet) {
	if d := p.sourceDelay(p.plan.match(m.topic)); !m.h.gone && !m.h.passivating && d >= 0 {
		p.quietSources.add(p.now+d, quietTopic{m.topic, m.h})
	}
}

// passivateSources asks every quiet source whose delay is over to stop.
func (p *pipeline) passivateSources(ctx actor.Context, now int64) {
	for {
		t, _, ok := p.quietSources.pop(now)
		if !ok {
			return
		}
		h := t.h
		z := h.sleep.Load()
		if h.gone || h.passivating || z == nil || z.until != math.MaxInt64 {
			continue // it woke: it reports again once it sleeps for good
		}
		h.passivating, h.disturbed = true, false
		h.closing.Store(true)
		p.sources.remove(t.topic)
		p.passivating[t.topic] = h
		ctx.Send(h.pid, &passivateSource{})
	}
}

// liveSource returns the running source of a topic, passivating ones included.
func (p *pipeline) liveSource(topic string) *sourceHandle {
	if h := p.sources.get(topic); h != nil {
		return h
	}
	return p.passivating[topic]
}

// keepSource ends a handshake that did not passivate the source of topic.
func (p *pipeline) keepSource(topic string, h *sourceHandle) {
	h.passivating = false
	h.closing.Store(false)
	delete(p.passivating, topic)
	p.sources.add(topic, h)
}

func (p *pipeline) onSourceStaying(m *sourceStaying) {
	h := p.passivating[m.topic]
	if h == nil {
		return
	}
	p.keepSource(m.topic, h)
	if d := p.sourceDelay(p.plan.match(m.topic)); m.retry && d >= 0 {
		p.quietSources.add(p.now+d, quietTopic{m.topic, h})
	}
}

func (p *pipeline) onSourcePassivated(ctx actor.Context, m *sourcePassivated) {
	h := p.passivating[m.topic]
	if h == nil {
		return
	}
	if h.disturbed || h.sent.Load() != m.received {
		p.keepSource(m.topic, h) // a message is on its way to it
		return
	}
	delete(p.passivating, m.topic)
	ctx.Stop(h.pid)
	p.sched.remove(h)
	def := p.plan.match(m.topic)
	p.remember(m.topic, passivated{rank: h.rank, def: def, advancing: h.advancing.Load(), lastArrival: m.lastArrival})
	p.env.metrics.SourcesPassive.WithLabelValues(p.plan.device.ID, p.plan.streams[def].cfg.Name).Inc()
}

// disturb notes that the pipeline sent something to the source of topic: a source
// being passivated stays.
func (p *pipeline) disturb(topic string) {
	if h := p.passivating[topic]; h != nil {
		h.disturbed = true
	}
}

// resumeSource starts the source of a passivated topic again from its saved state.
func (p *pipeline) resumeSource(ctx actor.Context, topic string, was passivated) *sourceHandle {
	delete(p.asleep, topic)
	st, ok, err := p.env.store.LoadStreamState(p.plan.device.ID, topic)
	if err != nil {
		// Without its state the stream would judge records against no watermark;
		// stop the device loudly.
		panic(err)
	}
	h := &sourceHandle{}
	var src *source
	switch {
	case !ok:
		src = newSource(p.srcDefs[was.def], topic, h, nil, false)
	case was.fromIndex:
		up, started := p.uptime.at(p.sourceTicked.Load())
		if !started {
			up = p.uptime.before
		}
		drifted := st.Drifted(up)
		src = newSource(p.srcDefs[was.def], topic, h, &drifted, false)
	default:
		src = newSource(p.srcDefs[was.def], topic, h, nil, false)
		src.resume(st)
	}
	src.stats.SetPassivated(false)
	h.advancing.Store(was.advancing) // its count in the schedule goes on with it
	return p.startSource(ctx, topic, h, src, was.rank)
}

// remember notes a stream whose source is not running: passivated, or idle since
// the start. /status keeps its row, marked passivated, and a message or a key that
// needs it starts it again; stream_retention after its last record it is forgotten.
func (p *pipeline) remember(topic string, was passivated) {
	p.asleep[topic] = was
	t := p.env.metrics.Streams.Topic(p.plan.device.ID, p.plan.streams[was.def].cfg.Name, topic)
	t.SetPassivated(true)
	if p.env.streamRetention > 0 {
		p.forget.add(watermark.AddSat(was.lastArrival, p.env.streamRetention), topic)
	}
}

// rememberSaved remembers a stream that was idle when edged stopped, with the state it
// saved: its row shows where it stood.
func (p *pipeline) rememberSaved(topic string, def int, st watermark.GeneratorState) {
	advancing := st.Base != watermark.Min
	if advancing {
		p.sched.advancing.Add(1)
	}
	p.remember(topic, passivated{def: def, fromIndex: true, advancing: advancing, lastArrival: st.LastArrival})
	t := p.env.metrics.Streams.Topic(p.plan.device.ID, p.plan.streams[def].cfg.Name, topic)
	t.SetIdle(true)
	if st.Seen {
		t.Watermark.Set(float64(st.Watermark) / 1000)
		t.MaxEvent.Set(float64(st.Max) / 1000)
		t.Arrival.Set(float64(st.LastArrival) / 1000)
	}
}

// forgetStreams forgets the streams whose retention is over: their saved state
// goes, and their /status row and share of the stream series with it. Their next
// message starts a new stream.
func (p *pipeline) forgetStreams(ctx actor.Context, now int64) {
	for {
		topic, due, ok := p.forget.pop(now)
		if !ok {
			return
		}
		was, ok := p.asleep[topic]
		if !ok || watermark.AddSat(was.lastArrival, p.env.streamRetention) != due {
			continue // running again, or remembered again since
		}
		delete(p.asleep, topic)
		if was.advancing {
			p.sched.advancing.Add(-1)
		}
		u := commit.NewUnit()
		u.DropStream = &commit.StreamDrop{Device: p.plan.device.ID, Stream: topic}
		p.sendAhead(ctx, u)
		p.env.metrics.Streams.Forget(p.plan.device.ID, topic)
		p.env.metrics.StreamsForgotten.WithLabelValues(p.plan.device.ID, p.plan.streams[was.def].cfg.Name).Inc()
	}
}
