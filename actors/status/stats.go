package status

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged/edged/watermark"
)

// Per-topic statistics. A gateway has one source per sensor topic, often thousands,
// and a Prometheus series costs kilobytes of heap: a set of series per topic would
// outweigh the topic's actors. Each topic instead keeps a handful of atomics (a few
// hundred bytes with its index entry) that its source and window actors set on the
// record path, and the stream collector turns them into series at scrape time: one
// series set per stream definition by default, per topic with metrics.per_topic.
// /status reads the same atomics for its per-topic rows.

// Counter is a counter bumped on the record path: one atomic add, no label lookup.
type Counter struct{ n atomic.Uint64 }

func (c *Counter) Inc()         { c.n.Add(1) }
func (c *Counter) load() uint64 { return c.n.Load() }

// Gauge holds a float64; 0 is a gauge never set.
type Gauge struct{ bits atomic.Uint64 }

func (g *Gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }
func (g *Gauge) Get() float64  { return math.Float64frombits(g.bits.Load()) }

// swap sets v and returns the value before.
func (g *Gauge) swap(v float64) float64 {
	return math.Float64frombits(g.bits.Swap(math.Float64bits(v)))
}

// The reasons a record is late or dropped: the reason label of edged_late_total and
// edged_dropped_total, and a late record's "reason".
const (
	TooLate     = "too_late"
	Future      = "future"
	Undecodable = "undecodable"
	KeyLimit    = "key_limit" // a new key past limits.max_keys_per_window
)

// streamReasons are the reasons a record is late or dropped, each with its own counter
// in Topic; a reason outside the list counts as the last.
var streamReasons = [...]string{TooLate, Future, Undecodable, KeyLimit, "other"}

func reasonIndex(reason string) int {
	for i, r := range streamReasons[:len(streamReasons)-1] {
		if r == reason {
			return i
		}
	}
	return len(streamReasons) - 1
}

// Topic is one concrete topic's statistics. Its source sets the exported counters
// and gauges; its late and dropped records are counted through Reasons.
type Topic struct {
	group *streamGroup
	topic string

	Records, DecodeErrors                   Counter
	Watermark, Lag, Idle, MaxEvent, Arrival Gauge
	reasons                                 atomic.Pointer[topicReasons] // nil until a record of the topic is late or dropped
	// sleep is how the watermark moves while the source skips its checks
	// (actors' source_sleep.go); Lag and Watermark are then computed from it.
	sleep atomic.Pointer[watermark.Drift]
	// passive is set while the topic's source is passivated.
	passive atomic.Bool

	// Kept by the status sampler, under its lock: what a single read cannot give.
	prevRecords uint64
	perS        float64
	sampled     bool
	wasIdle     bool
	speedKnown  bool
	speed       float32 // event time per processing time its watermark moved lately (speed.go)
	since       int64   // ms: when it entered its current idle state
	prevWM      float64 // Watermark at the previous sample, s
}

// Name is the concrete topic.
func (t *Topic) Name() string { return t.topic }

// Sleeping tells readers how the watermark moves while the source skips its periodic
// checks, which would have set Lag (and Watermark, for a stream idle in advance
// mode); nil when it checks again.
func (t *Topic) Sleeping(d *watermark.Drift) { t.sleep.Store(d) }

// SetPassivated notes whether the topic's source is passivated (stopped until its
// next message); a reactivated topic wakes a resting sampler.
func (t *Topic) SetPassivated(v bool) {
	if was := t.passive.Swap(v); was && !v {
		t.group.stats.wakeSampler()
	}
}

// SetIdle sets Idle; a topic that turns active wakes a resting sampler.
func (t *Topic) SetIdle(idle bool) {
	v := 0.0
	if idle {
		v = 1
	}
	if was := t.Idle.swap(v); was == 1 && !idle {
		t.group.stats.wakeSampler()
	}
}

// Passivated reports whether the topic's source is passivated.
func (t *Topic) Passivated() bool { return t.passive.Load() }

// LagAt is Lag as the checks skipped up to processing time now (ms) would have set it.
func (t *Topic) LagAt(now int64) float64 {
	if d := t.sleep.Load(); d != nil {
		if wm := d.At(now); wm != watermark.Min {
			return float64(now-wm) / 1000
		}
	}
	return t.Lag.Get()
}

// WatermarkAt is Watermark as the checks skipped up to processing time now (ms) would
// have set it.
func (t *Topic) WatermarkAt(now int64) float64 {
	if d := t.sleep.Load(); d != nil && d.Advancing() {
		return float64(d.At(now)) / 1000
	}
	return t.Watermark.Get()
}

// topicReasons counts a topic's late and dropped records by reason: apart from
// Topic, since most topics never have any.
type topicReasons struct {
	late, dropped [len(streamReasons)]Counter
}

// noReasons is what a topic without late or dropped records reads as.
var noReasons topicReasons

// counts returns the topic's late and dropped counters, for bumping one.
func (t *Topic) counts() *topicReasons {
	if r := t.reasons.Load(); r != nil {
		return r
	}
	t.reasons.CompareAndSwap(nil, &topicReasons{}) // the first of racing actors wins
	return t.reasons.Load()
}

// read returns the topic's late and dropped counters, for reading only.
func (t *Topic) read() *topicReasons {
	if r := t.reasons.Load(); r != nil {
		return r
	}
	return &noReasons
}

// streamGroup is the topics of one stream definition of one device.
type streamGroup struct {
	stats          *Stats
	device, stream string
	topics         []*Topic
	delays         *Delays // nil until a source of the group starts; under Stats.mu
	// forgotten holds what the group's forgotten topics counted, so that the
	// definition's counters never go back (Forget).
	forgotten *Topic
}

type groupRef struct{ device, stream string }

// Stats indexes every topic's statistics. Topics are added when their source
// starts and removed only with their device (a live reload that removes it).
type Stats struct {
	mu sync.RWMutex
	// topics is by device, then by topic: a key of one string, not two, in the
	// entry every topic has.
	topics map[string]map[string]*Topic
	groups map[groupRef]*streamGroup
	order  []*streamGroup // in creation order, for a stable scrape
	wake   chan struct{}  // Woken
}

func NewStats() *Stats {
	return &Stats{topics: map[string]map[string]*Topic{}, groups: map[groupRef]*streamGroup{}, wake: make(chan struct{}, 1)}
}

// Topic returns the statistics of a concrete topic of a stream definition, adding
// them the first time (a restarted source gets its counters back). A new topic
// wakes a resting sampler.
func (s *Stats) Topic(device, stream, topic string) *Topic {
	s.mu.RLock()
	t := s.topics[device][topic]
	s.mu.RUnlock()
	if t != nil {
		return t
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.topics[device][topic]; t != nil {
		return t
	}
	g := s.groups[groupRef{device, stream}]
	if g == nil {
		g = &streamGroup{stats: s, device: device, stream: stream}
		s.groups[groupRef{device, stream}] = g
		s.order = append(s.order, g)
	}
	t = &Topic{group: g, topic: topic}
	g.topics = append(g.topics, t)
	byTopic := s.topics[device]
	if byTopic == nil {
		byTopic = map[string]*Topic{}
		s.topics[device] = byTopic
	}
	byTopic[topic] = t
	s.wakeSampler()
	return t
}

// lookup finds a topic's statistics by the concrete topic a record carries. A topic
// no source registered (none in practice) is counted as its own stream definition.
func (s *Stats) lookup(device, topic string) *Topic {
	s.mu.RLock()
	t := s.topics[device][topic]
	s.mu.RUnlock()
	if t != nil {
		return t
	}
	return s.Topic(device, topic, topic)
}

// each calls f for every group and its topics, under the read lock: f must not block.
func (s *Stats) each(f func(g *streamGroup)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, g := range s.order {
		f(g)
	}
}

// Forget drops one topic of device, forgotten after limits.stream_retention. What it
// counted stays in its definition's totals; with metrics.per_topic its series go.
func (s *Stats) Forget(device, topic string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topics[device][topic]
	if t == nil {
		return
	}
	delete(s.topics[device], topic)
	g := t.group
	g.topics = slices.DeleteFunc(g.topics, func(x *Topic) bool { return x == t })
	if g.forgotten == nil {
		g.forgotten = &Topic{group: g}
	}
	f := g.forgotten
	f.Records.n.Add(t.Records.load())
	f.DecodeErrors.n.Add(t.DecodeErrors.load())
	if r := t.reasons.Load(); r != nil {
		fr := f.counts()
		for i := range streamReasons {
			fr.late[i].n.Add(r.late[i].load())
			fr.dropped[i].n.Add(r.dropped[i].load())
		}
	}
}

// ForgetDevice drops every topic of device.
func (s *Stats) ForgetDevice(device string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.topics, device)
	for ref := range s.groups {
		if ref.device == device {
			delete(s.groups, ref)
		}
	}
	s.order = slices.DeleteFunc(s.order, func(g *streamGroup) bool { return g.device == device })
}

// Reasons are the late or dropped counters by reason, found by the record's
// concrete topic. WithLabelValues has a CounterVec's shape, so the window and key
// limit paths count as they did.
type Reasons struct {
	stats *Stats
	pick  func(t *Topic) *[len(streamReasons)]Counter
}

// Late are the topics' late counters by reason.
func (s *Stats) Late() *Reasons {
	return &Reasons{stats: s, pick: func(t *Topic) *[len(streamReasons)]Counter { return &t.counts().late }}
}

// Dropped are the topics' dropped counters by reason.
func (s *Stats) Dropped() *Reasons {
	return &Reasons{stats: s, pick: func(t *Topic) *[len(streamReasons)]Counter { return &t.counts().dropped }}
}

func (r *Reasons) WithLabelValues(device, topic, reason string) *Counter {
	return &r.pick(r.stats.lookup(device, topic))[reasonIndex(reason)]
}

// Summary counts the concrete topics and the idle ones, and finds the highest
// watermark lag (seconds) of the active ones: what `edged demo` prints, whichever
// way the series are labelled.
func (s *Stats) Summary() (topics, idle int, maxActiveLag float64) {
	now := time.Now().UnixMilli()
	s.each(func(g *streamGroup) {
		for _, t := range g.topics {
			topics++
			if t.Idle.Get() == 1 {
				idle++
			} else {
				maxActiveLag = max(maxActiveLag, t.LagAt(now))
			}
		}
	})
	return topics, idle, maxActiveLag
}
