package status

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Status is what /status serves. Stream rows read the per-topic atomics the sources
// set, the rest the Prometheus registry's Gather: nothing on the record path takes a
// lock for it. Rates and "since" times come from the sampler's previous sample, so
// they are as fine as its interval.
type Status struct {
	Now     int64          `json:"now"` // ms since the epoch
	Streams []StreamStatus `json:"streams"`
	// StreamsTotal counts every concrete topic; Streams holds at most
	// statusMaxStreams of them, the most lagging first.
	StreamsTotal int `json:"streams_total"`
	// StreamsPassivated counts the topics among them whose source is passivated:
	// stopped until its next message, remembered until limits.stream_retention.
	StreamsPassivated int             `json:"streams_passivated"`
	Windows           []WindowStatus  `json:"windows"`
	Upstream          *UpstreamStatus `json:"upstream,omitempty"`
	Commits           CommitStatus    `json:"commits"`
	Lag               LagHistory      `json:"lag_history"`
	Config            *ConfigStatus   `json:"config,omitempty"`

	// Delays are the delay distributions per stream definition, as `edged tune`
	// measures them; DelaysTotal counts them all, Delays holds at most
	// statusMaxStreams, the largest fraction later than the bound first.
	Delays      []DelayStatus `json:"delays"`
	DelaysTotal int           `json:"delays_total"`
}

// StreamStatus is one concrete topic of one device.
type StreamStatus struct {
	Device       string           `json:"device"`
	Stream       string           `json:"stream"`     // the concrete topic
	Definition   string           `json:"definition"` // the stream definition it matched
	Watermark    *int64           `json:"watermark"`  // ms; null before the first
	LagMS        *int64           `json:"lag_ms"`
	Idle         bool             `json:"idle"`
	Passivated   bool             `json:"passivated,omitempty"` // its source is stopped until its next message
	Since        int64            `json:"since,omitempty"`      // ms: when it became idle or active, as the sampler saw it
	LastRecordMS *int64           `json:"last_record_age_ms"`
	MaxEventTime *int64           `json:"max_event_time"`
	RecordsPerS  float64          `json:"records_per_s"`
	Records      int64            `json:"records"`
	Late         map[string]int64 `json:"late,omitempty"` // by reason
	DecodeErrors int64            `json:"decode_errors"`
}

// WindowStatus is one window definition of one device.
type WindowStatus struct {
	Device            string  `json:"device"`
	Window            string  `json:"window"`
	Open              int64   `json:"open_windows"`
	Firings           int64   `json:"firings"`
	LateUpdates       int64   `json:"late_updates"`
	FiringsPerMin     float64 `json:"firings_per_min"`
	LateUpdatesPerMin float64 `json:"late_updates_per_min"`
	Keys              int64   `json:"keys"`           // live: window actors, and saved keys still to restore
	KeysRestoring     int64   `json:"keys_restoring"` // saved keys not yet back after a start, counted in Keys
	Passivations      int64   `json:"passivations"`   // window actors stopped since the start, their key holding nothing
	MaxKeysPerWindow  int     `json:"max_keys_per_window,omitempty"`
	// Late counts the records too late for every window of theirs (late output
	// or dropped), besides LateUpdates, the results re-fired for late records.
	Late       int64   `json:"late"`
	LatePerMin float64 `json:"late_per_min"`
	// OldestOpen and NextFiring are over the live keys (windows.go); absent
	// when no key holds a window, or the device did not answer in time.
	OldestOpen *WindowRef  `json:"oldest_open,omitempty"`
	NextFiring *NextFiring `json:"next_firing,omitempty"`
}

// UpstreamStatus is the link to the cloud broker and its outbox.
type UpstreamStatus struct {
	Connected     bool    `json:"connected"`
	OutboxRecords int64   `json:"outbox_records"`
	OutboxOldestS float64 `json:"outbox_oldest_age_s"`
	Sent          int64   `json:"sent"`
	DrainPerS     float64 `json:"drain_per_s"`
}

// CommitStatus sums state commits. RecentMeanS is the mean duration of the commits
// since the previous sample: the histogram keeps no single last duration.
type CommitStatus struct {
	Total       int64   `json:"total"`
	Errors      int64   `json:"errors"`
	RecentMeanS float64 `json:"recent_mean_s"`
}

// LagHistory is the watermark lag of the most lagging streams over the ring's span.
type LagHistory struct {
	EveryMS int64            `json:"every_ms"`
	Times   []int64          `json:"times"`  // ms, oldest first
	Series  map[string][]any `json:"series"` // device/stream: lag ms per time, null where unknown
}

// Sampler keeps what a single read cannot give: previous counters (for rates),
// idle transitions and the lag ring. Per topic they live in the topic's statistics.
// Only the sampler goroutine and the HTTP handlers take its locks.
type Sampler struct {
	reg       prometheus.Gatherer
	streams   *Stats
	maxKeys   int
	connected func() bool          // nil: no upstream block
	config    func() *ConfigStatus // nil: no config block (tests)

	windows func() []WindowSummary // nil: no oldest and next windows (tests); under mu

	sampling sync.Mutex // held through a whole sample: the loop's and Refresh's

	mu      sync.Mutex
	resting bool // the last sample found the daemon at rest (rest.go)
	prev    *sample
	minute  []*sample // the samples of the last minute, oldest first: per-minute rates
	ring    lagRing
	last    *Status
}

// sample holds the cumulative counters of one Gather.
type sample struct {
	at          int64
	firings     map[string]float64
	updates     map[string]float64
	late        map[string]float64
	sent        float64
	commits     float64
	commitSumS  float64
	commitCount float64
}

// The lag ring holds Span of samples taken every Every: 150 columns.
const (
	Every = 2 * time.Second
	Span  = 5 * time.Minute
	// topN bounds the lag history served: the most lagging streams, which are
	// the ones an operator looks for, not all of 10,000.
	topN = 20
)

// NewSampler samples reg (every series but the per-topic ones) and stats. maxKeys
// is limits.max_keys_per_window; connected, nil without an uplink, tells whether
// it is up; config, nil in tests, gives the config block.
func NewSampler(reg prometheus.Gatherer, stats *Stats, maxKeys int, connected func() bool, config func() *ConfigStatus) *Sampler {
	return &Sampler{
		reg: reg, streams: stats, maxKeys: maxKeys, connected: connected, config: config,
		ring: newLagRing(int(Span/Every), Every.Milliseconds()),
	}
}

// Sample gathers the registry at now, records lag in the ring and keeps the
// result for Snapshot; it is meant to run every Next.
func (s *Sampler) Sample(now time.Time) {
	s.sampling.Lock()
	defer s.sampling.Unlock()
	s.sample(now)
}

// sample is Sample under s.sampling, which keeps samples in the order of their times.
func (s *Sampler) sample(now time.Time) {
	st, cur := s.build(now.UnixMilli())
	s.mu.Lock()
	defer s.mu.Unlock()
	s.minute = append(s.minute, cur)
	for len(s.minute) > 1 && s.minute[0].at < cur.at-time.Minute.Milliseconds() {
		s.minute = s.minute[1:]
	}
	s.derive(st, cur)
	quiet := s.sampleStreams(st, cur.at)
	s.sampleDelays(st, cur.at)
	s.resting = quiet && cur.still(s.prev)
	s.prev = cur
	s.last = st
}

// Snapshot returns the last sample with the lag history of the topN most lagging
// streams; nil before the first sample.
func (s *Sampler) Snapshot() *Status {
	s.mu.Lock()
	windows := s.windows
	s.mu.Unlock()
	var summaries []WindowSummary
	if windows != nil {
		summaries = windows() // asks the pipelines: not under the lock
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		return nil
	}
	st := *s.last
	st.Lag = s.ring.history(topN)
	if s.config != nil {
		st.Config = s.config()
	}
	st.Windows = slices.Clone(st.Windows) // the summaries go into the copy, not the sample
	addSummaries(st.Windows, summaries)
	return &st
}

// derive fills in rates and since times from the previous sample.
func (s *Sampler) derive(st *Status, cur *sample) {
	dt := 0.0
	if s.prev != nil {
		dt = float64(cur.at-s.prev.at) / 1000
	}
	rate := func(now, before float64) float64 {
		if dt <= 0 || now < before {
			return 0
		}
		return (now - before) / dt
	}
	// Windows fire in bursts at their ends, so their rates span the last minute,
	// not one sampling interval (which would read 0 between bursts).
	if len(s.minute) > 0 {
		base := s.minute[0]
		for i := range st.Windows {
			w := &st.Windows[i]
			k := w.Device + "/" + w.Window
			w.FiringsPerMin = perMinute(cur.at-base.at, cur.firings[k], base.firings[k])
			w.LateUpdatesPerMin = perMinute(cur.at-base.at, cur.updates[k], base.updates[k])
			w.LatePerMin = perMinute(cur.at-base.at, cur.late[k], base.late[k])
		}
	}
	if s.prev != nil {
		if st.Upstream != nil {
			st.Upstream.DrainPerS = rate(cur.sent, s.prev.sent)
		}
		if n := cur.commitCount - s.prev.commitCount; n > 0 {
			st.Commits.RecentMeanS = (cur.commitSumS - s.prev.commitSumS) / n
		}
	}
}

// perMinute is the rate of a counter that went from before to now in ms.
func perMinute(ms int64, now, before float64) float64 {
	if ms <= 0 || now < before {
		return 0
	}
	return (now - before) * 60_000 / float64(ms)
}

// entryFor returns the element of list that index maps key to, appending a fresh one
// the first time: series of one stream or window arrive spread over many families.
func entryFor[T any](index map[string]int, list *[]T, key string, fresh func() T) *T {
	i, ok := index[key]
	if !ok {
		i = len(*list)
		index[key] = i
		*list = append(*list, fresh())
	}
	return &(*list)[i]
}

// build turns one Gather into a Status (rates not yet filled in) and its counters.
func (s *Sampler) build(now int64) (*Status, *sample) {
	st := &Status{Now: now}
	cur := &sample{at: now, firings: map[string]float64{}, updates: map[string]float64{}, late: map[string]float64{}}
	fams, err := s.reg.Gather()
	if err != nil && len(fams) == 0 {
		return st, cur
	}
	windows := map[string]int{}
	window := func(m *dto.Metric) *WindowStatus {
		dev, name := label(m, "device"), label(m, "window")
		return entryFor(windows, &st.Windows, dev+"/"+name, func() WindowStatus {
			return WindowStatus{Device: dev, Window: name, MaxKeysPerWindow: s.maxKeys}
		})
	}
	var up UpstreamStatus
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			g, c := m.GetGauge().GetValue(), m.GetCounter().GetValue()
			switch f.GetName() {
			case "edged_window_firings_total":
				w := window(m)
				w.Firings = int64(c)
				cur.firings[w.Device+"/"+w.Window] = c
			case "edged_window_late_updates_total":
				w := window(m)
				w.LateUpdates = int64(c)
				cur.updates[w.Device+"/"+w.Window] = c
			case "edged_window_late_total":
				w := window(m)
				w.Late = int64(c)
				cur.late[w.Device+"/"+w.Window] = c
			case "edged_window_keys":
				window(m).Keys = int64(g)
			case "edged_window_keys_restoring":
				window(m).KeysRestoring = int64(g)
			case "edged_window_passivations_total":
				window(m).Passivations = int64(c)
			case "edged_open_windows":
				window(m).Open = int64(g)
			case "edged_outbox_records":
				up.OutboxRecords += int64(g)
			case "edged_outbox_oldest_age_seconds":
				up.OutboxOldestS = max(up.OutboxOldestS, g)
			case "edged_upstream_sent_total":
				up.Sent, cur.sent = int64(c), c
			case "edged_commits_total":
				st.Commits.Total = int64(c)
			case "edged_commit_errors_total":
				st.Commits.Errors = int64(c)
			case "edged_commit_duration_seconds":
				cur.commitSumS, cur.commitCount = m.GetHistogram().GetSampleSum(), float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	if s.connected != nil {
		up.Connected = s.connected()
		st.Upstream = &up
	}
	return st, cur
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// ms converts seconds to milliseconds; a gauge never set reads 0, which means unknown.
func ms(s float64) *int64 {
	if s == 0 {
		return nil
	}
	v := int64(math.Round(s * 1000))
	return &v
}
