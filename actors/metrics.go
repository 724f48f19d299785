package actors

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/actors/uplink"
	"github.com/edged/edged/configs"
)

// Metrics are the daemon's Prometheus series. Streams are labelled by stream
// definition unless metrics.per_topic asks for a series set per concrete topic (per
// sensor); /status has the per-topic detail either way.
type Metrics struct {
	Registry *prometheus.Registry
	// status is every series of Registry but the per-topic stream series: what the
	// /status sampler gathers every 2 s (30 s at rest), which reads topics from Streams instead.
	status *prometheus.Registry
	// labelled is every vector with labels, for forget.
	labelled []*prometheus.MetricVec

	// Streams holds every concrete topic's statistics; a status collector exports them.
	Streams          *status.Stats
	Late             *status.Reasons        // device, concrete topic, reason
	Dropped          *status.Reasons        // device, concrete topic, reason
	Firings          *prometheus.CounterVec // device, window
	LateUpdates      *prometheus.CounterVec // device, window
	WindowLate       *prometheus.CounterVec // device, window
	OpenWindows      *prometheus.GaugeVec   // device, window
	Keys             *prometheus.GaugeVec   // device, window
	KeysRestoring    *prometheus.GaugeVec   // device, window
	Passivations     *prometheus.CounterVec // device, window
	SourcesPassive   *prometheus.CounterVec // device, stream
	StreamsForgotten *prometheus.CounterVec // device, stream
	Duplicates       *prometheus.CounterVec // device
	Unmatched        prometheus.Counter
	LongTopics       prometheus.Counter
	Overload         *prometheus.CounterVec // device: QoS 0 messages dropped at intake
	Inflight         *prometheus.GaugeVec   // device
	Commits          prometheus.Counter
	CommitErrors     prometheus.Counter
	CommitSeconds    prometheus.Histogram
	Published        prometheus.Counter
	PublishErrors    prometheus.Counter
	PublishRefused   *prometheus.CounterVec // output: local | upstream
	Quarantined      *prometheus.CounterVec // device, window
	Unreadable       *prometheus.CounterVec // device: saved stream or valve states skipped at start or when their key came back
	BrokerUp         prometheus.Gauge
	UnshippedLate    *prometheus.CounterVec // device: late records with no upstream configured
	Uplink           *uplink.Metrics        // the upstream series; PublishRefused is its Refused
}

// NewMetrics registers every series on a fresh registry, streams by definition.
func NewMetrics() *Metrics { return MetricsFor(configs.Metrics{}) }

// MetricsFor registers every series on a fresh registry as cfg asks.
func MetricsFor(cfg configs.Metrics) *Metrics {
	r, forStatus := prometheus.NewRegistry(), prometheus.NewRegistry()
	f := factory{r: r, status: forStatus}
	streams := status.NewStats()
	r.MustRegister(status.NewCollector(streams, cfg.PerTopic))
	publishRefused := f.counters("edged_publish_refused_total", "Records dropped because the broker would never take them: a topic that is not a valid MQTT topic, a record over a JetStream server's max_payload or its stream's max_msg_size (never retried).", "output")
	m := &Metrics{
		Registry:         r,
		status:           forStatus,
		Streams:          streams,
		Late:             streams.Late(),
		Dropped:          streams.Dropped(),
		Firings:          f.counters("edged_window_firings_total", "On-time and early window results.", "device", "window"),
		LateUpdates:      f.counters("edged_window_late_updates_total", "Window results re-fired for late data.", "device", "window"),
		WindowLate:       f.counters("edged_window_late_total", "Records too late for every window of theirs in a window definition: sent to the late output, or dropped (counted in edged_late_total and edged_dropped_total by stream).", "device", "window"),
		OpenWindows:      f.gauges("edged_open_windows", "Windows holding state.", "device", "window"),
		Keys:             f.gauges("edged_window_keys", "Live keys of a window definition (window actors, and saved keys still to restore after a start), against limits.max_keys_per_window; passivated keys are not counted.", "device", "window"),
		Passivations:     f.counters("edged_window_passivations_total", "Window actors stopped because their key held no window and nothing uncommitted for passivate_after (its next reading starts it again).", "device", "window"),
		SourcesPassive:   f.counters("edged_stream_passivations_total", "Source actors stopped because their topic was idle with nothing left to do for idle_timeout more (its next message starts it again).", "device", "stream"),
		StreamsForgotten: f.counters("edged_stream_topics_forgotten_total", "Topics forgotten after limits.stream_retention without a message: their saved state, /status row and share of the stream series went.", "device", "stream"),
		KeysRestoring:    f.gauges("edged_window_keys_restoring", "Saved keys of a window definition not yet restored after a start (counted in edged_window_keys; one a message needs is restored first).", "device", "window"),
		Duplicates:       f.counters("edged_duplicates_skipped_total", "Redelivered messages already applied.", "device"),
		Unmatched:        f.counter("edged_unmatched_total", "Messages on a topic no stream matches."),
		LongTopics:       f.counter("edged_long_topics_dropped_total", "Messages dropped (and acknowledged) because their topic is longer than 1024 bytes."),
		Overload:         f.counters("edged_overload_dropped_total", "QoS 0 messages dropped because the pipeline was full.", "device"),
		Inflight:         f.gauges("edged_inflight_messages", "Messages received but not yet acknowledged.", "device"),
		Commits:          f.counter("edged_commits_total", "State commits."),
		CommitErrors:     f.counter("edged_commit_errors_total", "State commits that failed (intake stalls until one succeeds)."),
		CommitSeconds:    f.histogram("edged_commit_duration_seconds", "Duration of a state commit."),
		Published:        f.counter("edged_results_published_total", "Results delivered to the local broker."),
		PublishErrors:    f.counter("edged_publish_errors_total", "Result publishes that failed and will be retried."),
		PublishRefused:   publishRefused,
		Quarantined:      f.counters("edged_quarantined_windows_total", "Persisted windows that failed to decode.", "device", "window"),
		Unreadable:       f.counters("edged_unreadable_state_total", "Persisted stream or valve states that failed to decode (started empty).", "device"),
		BrokerUp:         f.gauge("edged_broker_connected", "1 while connected to the local broker."),
		UnshippedLate:    f.counters("edged_late_unshipped_total", "Late records logged because no upstream is configured.", "device"),
		Uplink: &uplink.Metrics{
			Connected:     f.gauge("edged_upstream_connected", "1 while connected to the upstream broker."),
			OutboxRecords: f.gauges("edged_outbox_records", "Entries waiting in an outbox.", "queue"),
			OutboxBytes:   f.gauges("edged_outbox_bytes", "Bytes waiting in an outbox.", "queue"),
			OutboxOldest:  f.gauges("edged_outbox_oldest_age_seconds", "Age of the oldest outbox entry.", "queue"),
			Sent:          f.counter("edged_upstream_sent_total", "Records delivered upstream (PUBACK received)."),
			Dropped:       f.counters("edged_upstream_dropped_total", "Outbox records dropped by the full-outbox policy.", "policy"),
			Duplicates:    f.counter("edged_upstream_duplicates_total", "Records JetStream already held when edged sent them again (after a lost ack or a crash): stored once, counted here."),
			Refused:       publishRefused,
		},
	}
	m.labelled = f.labelled
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), buildInfoCollector())
	return m
}

// factory registers each series on the registry and the status registry, and keeps
// the labelled vectors for Metrics.forget.
type factory struct {
	r, status *prometheus.Registry
	labelled  []*prometheus.MetricVec
}

func (f factory) register(c prometheus.Collector) {
	f.r.MustRegister(c)
	f.status.MustRegister(c)
}

func (f *factory) counters(name, help string, labels ...string) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.register(v)
	f.labelled = append(f.labelled, v.MetricVec)
	return v
}

func (f *factory) gauges(name, help string, labels ...string) *prometheus.GaugeVec {
	v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	f.register(v)
	f.labelled = append(f.labelled, v.MetricVec)
	return v
}

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	f.register(c)
	return c
}

func (f factory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	f.register(g)
	return g
}

func (f factory) histogram(name, help string) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: prometheus.ExponentialBuckets(0.0001, 4, 8)})
	f.register(h)
	return h
}
