package status

import (
	"cmp"
	"math"
	"slices"
)

// statusMaxStreams bounds the stream rows of /status (and what the sampler keeps
// between samples): the most lagging topics, which are the ones an operator looks
// for. /status?topic= finds any other. About 250 bytes each.
const statusMaxStreams = 1000

// lagKept is how many streams' lag each column of the lag ring keeps: the ring
// serves the topN most lagging, and a stream that joins them shows as much of its
// past as the wider cut kept.
const lagKept = 2 * topN

// sampleStreams updates every topic's rate and idle transition and fills st with the
// most lagging topics' rows and the ring with their lags. It reports whether every
// topic was resting (rest.go). Called under s.mu.
func (s *Sampler) sampleStreams(st *Status, now int64) (quiet bool) {
	quiet = true
	dt := 0.0
	if s.prev != nil {
		dt = float64(now-s.prev.at) / 1000
	}
	alpha := speedWeight(dt)
	var all []lagged
	s.streams.each(func(g *streamGroup) {
		for _, t := range g.topics {
			quiet = quiet && t.resting()
			n := t.Records.load()
			t.perS = 0
			if t.sampled && dt > 0 && n >= t.prevRecords {
				t.perS = float64(n-t.prevRecords) / dt
			}
			t.prevRecords = n
			t.measureSpeed(now, dt, alpha)
			idle := t.Idle.Get() == 1
			if !t.sampled || t.wasIdle != idle {
				t.since, t.wasIdle = now, idle
			}
			t.sampled = true
			if t.Passivated() {
				st.StreamsPassivated++
			}
			all = append(all, lagged{lagOrder(t, now), t})
		}
	})
	// The lags are read once, not at each of the sort's comparisons: a gateway has
	// thousands of topics, sorted every sample.
	slices.SortFunc(all, func(a, b lagged) int {
		if c := cmp.Compare(b.order, a.order); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.t.group.device, b.t.group.device), cmp.Compare(a.t.topic, b.t.topic))
	})
	st.StreamsTotal = len(all)
	rows := all[:min(len(all), statusMaxStreams)]
	st.Streams = make([]StreamStatus, len(rows))
	for i, r := range rows {
		st.Streams[i] = streamRow(r.t, now)
	}
	lags := make(map[string]float64, lagKept)
	for _, r := range all[:min(len(all), lagKept)] {
		// The lag the topics were sorted by, not read again: the history keeps the
		// topics it chose for their lag with that lag.
		if !math.IsInf(r.order, -1) {
			lags[r.t.group.device+"/"+r.t.topic] = math.Round(r.order * 1000)
		}
	}
	s.ring.add(now, lags)
	return quiet
}

// lagged is a topic with its lag as sampled, to sort by.
type lagged struct {
	order float64 // lagOrder
	t     *Topic
}

// lagOrder sorts topics with no lag yet after every topic with one.
func lagOrder(t *Topic, now int64) float64 {
	if v := t.LagAt(now); v != 0 {
		return v
	}
	return math.Inf(-1)
}

// streamRow is a topic's /status row as of the last sample.
func streamRow(t *Topic, now int64) StreamStatus {
	x := StreamStatus{
		Device: t.group.device, Stream: t.topic, Definition: t.group.stream,
		Watermark: ms(t.WatermarkAt(now)), LagMS: ms(t.LagAt(now)), Idle: t.wasIdle, Since: t.since, Passivated: t.Passivated(),
		MaxEventTime: ms(t.MaxEvent.Get()), RecordsPerS: t.perS,
		Records: int64(t.Records.load()), DecodeErrors: int64(t.DecodeErrors.load()),
	}
	if a := t.Arrival.Get(); a != 0 {
		age := now - int64(math.Round(a*1000))
		x.LastRecordMS = &age
	}
	late := &t.read().late
	for i, r := range streamReasons {
		if n := late[i].load(); n > 0 {
			if x.Late == nil {
				x.Late = map[string]int64{}
			}
			x.Late[r] = int64(n)
		}
	}
	return x
}

// topicRows are the rows of every device's topic named topic, as of now: the
// on-demand detail for a topic outside the bounded list.
func (s *Sampler) topicRows(topic string, now int64) []StreamStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows := []StreamStatus{}
	s.streams.each(func(g *streamGroup) {
		for _, t := range g.topics {
			if t.topic == topic {
				rows = append(rows, streamRow(t, now))
			}
		}
	})
	return rows
}
