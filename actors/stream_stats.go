package actors

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// Per-topic statistics. A gateway has one source per sensor topic, often thousands;
// a Prometheus series costs about 3 KB of heap, and a stream had nine of them per
// topic. Each topic instead keeps a handful of atomics (about 200 bytes with its
// index entry) that its source and window actors set on the record path, and the
// stream collector turns them into series at scrape time: one series set per stream
// definition by default, per topic with metrics.per_topic. /status reads the same
// atomics for its per-topic rows.

// statCounter is a counter bumped on the record path: one atomic add, no label lookup.
type statCounter struct{ n atomic.Uint64 }

func (c *statCounter) Inc()         { c.n.Add(1) }
func (c *statCounter) load() uint64 { return c.n.Load() }

// statGauge holds a float64; 0 is a gauge never set.
type statGauge struct{ bits atomic.Uint64 }

func (g *statGauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }
func (g *statGauge) get() float64  { return math.Float64frombits(g.bits.Load()) }

// streamReasons are the reasons a record is late or dropped, each with its own counter
// in topicStats; a reason outside the list counts as the last.
var streamReasons = [...]string{reasonTooLate, reasonFuture, reasonUndecodable, reasonKeyLimit, "other"}

func reasonIndex(reason string) int {
	for i, r := range streamReasons[:len(streamReasons)-1] {
		if r == reason {
			return i
		}
	}
	return len(streamReasons) - 1
}

// topicStats is one concrete topic's statistics.
type topicStats struct {
	group *streamGroup
	topic string

	records, decodeErrors                   statCounter
	watermark, lag, idle, maxEvent, arrival statGauge
	reasons                                 atomic.Pointer[topicReasons] // nil until a record of the topic is late or dropped

	// Kept by the status sampler, under its lock: what a single read cannot give.
	prevRecords uint64
	perS        float64
	sampled     bool
	wasIdle     bool
	since       int64 // ms: when it entered its current idle state
}

// topicReasons counts a topic's late and dropped records by reason: apart from
// topicStats, since most topics never have any.
type topicReasons struct {
	late, dropped [len(streamReasons)]statCounter
}

// noReasons is what a topic without late or dropped records reads as.
var noReasons topicReasons

// counts returns the topic's late and dropped counters, for bumping one.
func (t *topicStats) counts() *topicReasons {
	if r := t.reasons.Load(); r != nil {
		return r
	}
	t.reasons.CompareAndSwap(nil, &topicReasons{}) // the first of racing actors wins
	return t.reasons.Load()
}

// read returns the topic's late and dropped counters, for reading only.
func (t *topicStats) read() *topicReasons {
	if r := t.reasons.Load(); r != nil {
		return r
	}
	return &noReasons
}

// streamGroup is the topics of one stream definition of one device.
type streamGroup struct {
	device, stream string
	topics         []*topicStats
	delays         *delayStats // nil until a source of the group starts; under streamStats.mu
}

type groupRef struct{ device, stream string }

// streamStats indexes every topic's statistics. Topics are added when their source
// starts and removed only with their device (a live reload that removes it).
type streamStats struct {
	mu sync.RWMutex
	// topics is by device, then by topic: a key of one string, not two, in the
	// entry every topic has.
	topics map[string]map[string]*topicStats
	groups map[groupRef]*streamGroup
	order  []*streamGroup // in creation order, for a stable scrape
}

func newStreamStats() *streamStats {
	return &streamStats{topics: map[string]map[string]*topicStats{}, groups: map[groupRef]*streamGroup{}}
}

// topic returns the statistics of a concrete topic of a stream definition, adding
// them the first time (a restarted source gets its counters back).
func (s *streamStats) topic(device, stream, topic string) *topicStats {
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
		g = &streamGroup{device: device, stream: stream}
		s.groups[groupRef{device, stream}] = g
		s.order = append(s.order, g)
	}
	t = &topicStats{group: g, topic: topic}
	g.topics = append(g.topics, t)
	byTopic := s.topics[device]
	if byTopic == nil {
		byTopic = map[string]*topicStats{}
		s.topics[device] = byTopic
	}
	byTopic[topic] = t
	return t
}

// lookup finds a topic's statistics by the concrete topic a record carries. A topic
// no source registered (none in practice) is counted as its own stream definition.
func (s *streamStats) lookup(device, topic string) *topicStats {
	s.mu.RLock()
	t := s.topics[device][topic]
	s.mu.RUnlock()
	if t != nil {
		return t
	}
	return s.topic(device, topic, topic)
}

// each calls f for every group and its topics, under the read lock: f must not block.
func (s *streamStats) each(f func(g *streamGroup)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, g := range s.order {
		f(g)
	}
}

// forgetDevice drops every topic of device.
func (s *streamStats) forgetDevice(device string) {
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

// count is the number of topics.
func (s *streamStats) count() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, byTopic := range s.topics {
		n += len(byTopic)
	}
	return n
}

// reasonCounters are the late or dropped counters by reason, found by the record's
// concrete topic. WithLabelValues has a CounterVec's shape, so the window and key
// limit paths count as they did.
type reasonCounters struct {
	stats *streamStats
	pick  func(t *topicStats) *[len(streamReasons)]statCounter
}

func (r *reasonCounters) WithLabelValues(device, topic, reason string) *statCounter {
	return &r.pick(r.stats.lookup(device, topic))[reasonIndex(reason)]
}

// TopicSummary counts the concrete topics and the idle ones, and finds the highest
// watermark lag (seconds) of the active ones: what `edged demo` prints, whichever
// way the series are labelled.
func (m *Metrics) TopicSummary() (topics, idle int, maxActiveLag float64) {
	m.Streams.each(func(g *streamGroup) {
		for _, t := range g.topics {
			topics++
			if t.idle.get() == 1 {
				idle++
			} else {
				maxActiveLag = max(maxActiveLag, t.lag.get())
			}
		}
	})
	return topics, idle, maxActiveLag
}
