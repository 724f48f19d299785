package status

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// streamCollector exports the per-topic statistics at scrape time. By default a
// series is one stream definition of one device (label stream is the definition's
// name), aggregated the way a dashboard would: counters summed, watermark the
// lowest, lag, max event time and last arrival the highest, idle the number of idle
// topics. With metrics.per_topic every concrete topic is its own series (label
// topic): ten series per sensor, built at each scrape and garbage after it, so a
// scrape's time and garbage grow with the topics (actors' BenchmarkScrape10kTopics).
type streamCollector struct {
	stats    *Stats
	perTopic bool

	records, decodeErrors, late, dropped       *prometheus.Desc
	watermark, lag, idle, maxEvent, lastArrive *prometheus.Desc
	topics, passive                            *prometheus.Desc
}

// NewCollector exports stats at each scrape: per stream definition, or per concrete
// topic when perTopic (metrics.per_topic).
func NewCollector(stats *Stats, perTopic bool) prometheus.Collector {
	labels := []string{"device", "stream"}
	if perTopic {
		labels = append(labels, "topic")
	}
	d := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append(append([]string{}, labels...), extra...), nil)
	}
	return &streamCollector{
		stats: stats, perTopic: perTopic,
		records:      d("edged_records_in_total", "Readings accepted from a stream."),
		decodeErrors: d("edged_decode_errors_total", "Payloads that could not be decoded."),
		late:         d("edged_late_total", "Records sent to the late output.", "reason"),
		dropped:      d("edged_dropped_total", "Records dropped, by reason.", "reason"),
		watermark:    d("edged_watermark_seconds", "Current watermark of a stream (seconds since the epoch); per definition, its lowest topic's."),
		lag:          d("edged_watermark_lag_seconds", "Processing time minus watermark, in seconds; per definition, its most lagging topic's."),
		idle:         d("edged_stream_idle", "1 while a topic is idle; per definition, the number of idle topics."),
		maxEvent:     d("edged_stream_max_event_time_seconds", "Highest accepted event time of a stream (seconds since the epoch)."),
		lastArrive:   d("edged_stream_last_arrival_seconds", "Processing time of a stream's last accepted record (seconds since the epoch)."),
		topics: prometheus.NewDesc("edged_stream_topics", "Concrete topics of a stream definition that edged remembers (limits.stream_retention), running or passivated.",
			[]string{"device", "stream"}, nil),
		passive: prometheus.NewDesc("edged_stream_topics_passivated", "Concrete topics of a stream definition whose source is passivated (stopped until its next message).",
			[]string{"device", "stream"}, nil),
	}
}

func (c *streamCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.records, c.decodeErrors, c.late, c.dropped, c.watermark, c.lag, c.idle, c.maxEvent, c.lastArrive, c.topics, c.passive} {
		ch <- d
	}
}

// streamTotals is one series' worth: a topic, or a definition's topics combined.
type streamTotals struct {
	records, decodeErrors                   uint64
	late, dropped                           [len(streamReasons)]uint64
	watermark, lag, idle, maxEvent, arrival float64
}

func (t *streamTotals) add(s *Topic, now int64) {
	t.records += s.Records.load()
	t.decodeErrors += s.DecodeErrors.load()
	r := s.read()
	for i := range streamReasons {
		t.late[i] += r.late[i].load()
		t.dropped[i] += r.dropped[i].load()
	}
	if wm := s.WatermarkAt(now); wm != 0 && (t.watermark == 0 || wm < t.watermark) {
		t.watermark = wm
	}
	t.lag = math.Max(t.lag, s.LagAt(now))
	t.idle += s.Idle.Get()
	t.maxEvent = math.Max(t.maxEvent, s.MaxEvent.Get())
	t.arrival = math.Max(t.arrival, s.Arrival.Get())
}

// addForgotten adds the counts of a definition's forgotten topics, if any.
func (t *streamTotals) addForgotten(f *Topic) {
	if f == nil {
		return
	}
	t.records += f.Records.load()
	t.decodeErrors += f.DecodeErrors.load()
	r := f.read()
	for i := range streamReasons {
		t.late[i] += r.late[i].load()
		t.dropped[i] += r.dropped[i].load()
	}
}

func (c *streamCollector) Collect(ch chan<- prometheus.Metric) {
	now := time.Now().UnixMilli()
	c.stats.each(func(g *streamGroup) {
		ch <- prometheus.MustNewConstMetric(c.topics, prometheus.GaugeValue, float64(len(g.topics)), g.device, g.stream)
		passive := 0
		for _, t := range g.topics {
			if t.Passivated() {
				passive++
			}
		}
		ch <- prometheus.MustNewConstMetric(c.passive, prometheus.GaugeValue, float64(passive), g.device, g.stream)
		if c.perTopic {
			for _, t := range g.topics {
				var tot streamTotals
				tot.add(t, now)
				c.emit(ch, &tot, g.device, g.stream, t.topic)
			}
			return
		}
		var tot streamTotals
		for _, t := range g.topics {
			tot.add(t, now)
		}
		tot.addForgotten(g.forgotten)
		c.emit(ch, &tot, g.device, g.stream)
	})
}

func (c *streamCollector) emit(ch chan<- prometheus.Metric, t *streamTotals, labels ...string) {
	counter := func(d *prometheus.Desc, v uint64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), append(labels, extra...)...)
	}
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter(c.records, t.records)
	counter(c.decodeErrors, t.decodeErrors)
	// A reason's series appears once it has counted something, as a labelled
	// counter's did.
	for i, r := range streamReasons {
		if t.late[i] > 0 {
			counter(c.late, t.late[i], r)
		}
		if t.dropped[i] > 0 {
			counter(c.dropped, t.dropped[i], r)
		}
	}
	gauge(c.watermark, t.watermark)
	gauge(c.lag, t.lag)
	gauge(c.idle, t.idle)
	gauge(c.maxEvent, t.maxEvent)
	gauge(c.lastArrive, t.arrival)
}
