package actors

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/configs"
)

// Streams are exported per definition by default, so the series count does not grow
// with sensors; metrics.per_topic brings back one series set per concrete topic.
func TestStreamSeriesAreByDefinitionUnlessPerTopic(t *testing.T) {
	fill := func(m *Metrics) {
		a, b := m.Streams.Topic("d", "temp", "s/a/temp"), m.Streams.Topic("d", "temp", "s/b/temp")
		for range 3 {
			a.Records.Inc()
		}
		for range 4 {
			b.Records.Inc()
		}
		a.Watermark.Set(100)
		b.Watermark.Set(90)
		a.Lag.Set(1)
		b.Lag.Set(2)
		b.Idle.Set(1)
		m.Late.WithLabelValues("d", "s/b/temp", status.Future).Inc()
	}
	m := NewMetrics()
	fill(m)
	got := series(t, m)
	for k, v := range map[string]float64{
		`edged_records_in_total{device="d",stream="temp"}`:              7,
		`edged_stream_idle{device="d",stream="temp"}`:                   1,
		`edged_stream_topics{device="d",stream="temp"}`:                 2,
		`edged_stream_topics_passivated{device="d",stream="temp"}`:      0,
		`edged_watermark_lag_seconds{device="d",stream="temp"}`:         2,
		`edged_watermark_seconds{device="d",stream="temp"}`:             90,
		`edged_late_total{device="d",reason="future",stream="temp"}`:    1,
		`edged_stream_last_arrival_seconds{device="d",stream="temp"}`:   0,
		`edged_stream_max_event_time_seconds{device="d",stream="temp"}`: 0,
		`edged_decode_errors_total{device="d",stream="temp"}`:           0,
	} {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	if n := len(got); n != 10 {
		t.Errorf("%d stream series for two topics, want 10: %v", n, got)
	}

	m = MetricsFor(configs.Metrics{PerTopic: true})
	fill(m)
	got = series(t, m)
	for k, v := range map[string]float64{
		`edged_records_in_total{device="d",stream="temp",topic="s/a/temp"}`:           3,
		`edged_records_in_total{device="d",stream="temp",topic="s/b/temp"}`:           4,
		`edged_late_total{device="d",reason="future",stream="temp",topic="s/b/temp"}`: 1,
	} {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("per topic: %s = %v (present %v), want %v", k, g, ok, v)
		}
	}
}

// series gathers the series labelled by stream as name{labels} -> value.
func series(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	fams, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		for _, x := range f.GetMetric() {
			var ls []string
			byStream := false
			for _, l := range x.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
				byStream = byStream || l.GetName() == "stream" && l.GetValue() != ""
			}
			if byStream {
				out[f.GetName()+"{"+strings.Join(ls, ",")+"}"] = x.GetGauge().GetValue() + x.GetCounter().GetValue()
			}
		}
	}
	return out
}

// BenchmarkScrape10kTopics gathers the registry with 10,000 topics of one stream
// definition, as a Prometheus scrape does: series by definition, and per topic.
func BenchmarkScrape10kTopics(b *testing.B) {
	for _, perTopic := range []bool{false, true} {
		b.Run(fmt.Sprintf("per_topic=%v", perTopic), func(b *testing.B) {
			m := MetricsFor(configs.Metrics{PerTopic: perTopic})
			for i := range 10_000 {
				x := m.Streams.Topic("d", "temp", fmt.Sprintf("sensors/%d/temp", i))
				x.Records.Inc()
				x.Watermark.Set(1.7e9)
				x.Lag.Set(0.3)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Registry.Gather(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Sources add topics and bump their atomics while a scrape and the /status sampler
// read them (run with -race).
func TestStreamStatsAreReadWhileSourcesWrite(t *testing.T) {
	m := MetricsFor(configs.Metrics{PerTopic: true})
	s := sampler(m, 0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 2000 {
			x := m.Streams.Topic("d", "temp", fmt.Sprintf("s/%d", i%100))
			x.Records.Inc()
			x.Lag.Set(float64(i))
			m.Late.WithLabelValues("d", fmt.Sprintf("s/%d", i%100), status.TooLate).Inc()
		}
	}()
	now := time.UnixMilli(1_700_000_000_000)
	for i := 0; ; i++ {
		s.Sample(now.Add(time.Duration(i) * status.Every))
		if _, err := m.Registry.Gather(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
			got := series(t, m)
			if v := got[`edged_records_in_total{device="d",stream="temp",topic="s/7"}`]; v != 20 {
				t.Errorf("s/7 counted %v records, want 20", v)
			}
			return
		default:
		}
	}
}
