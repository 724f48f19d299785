package actors

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged/edged/configs"
)

// Streams are exported per definition by default, so the series count does not grow
// with sensors; metrics.per_topic brings back one series set per concrete topic.
func TestStreamSeriesAreByDefinitionUnlessPerTopic(t *testing.T) {
	fill := func(m *Metrics) {
		a, b := m.Streams.topic("d", "temp", "s/a/temp"), m.Streams.topic("d", "temp", "s/b/temp")
		a.records.n.Add(3)
		b.records.n.Add(4)
		a.watermark.Set(100)
		b.watermark.Set(90)
		a.lag.Set(1)
		b.lag.Set(2)
		b.idle.Set(1)
		m.Late.WithLabelValues("d", "s/b/temp", reasonFuture).Inc()
	}
	m := NewMetrics()
	fill(m)
	got := series(t, m)
	for k, v := range map[string]float64{
		`edged_records_in_total{device="d",stream="temp"}`:              7,
		`edged_stream_idle{device="d",stream="temp"}`:                   1,
		`edged_stream_topics{device="d",stream="temp"}`:                 2,
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
	if n := len(got); n != 9 {
		t.Errorf("%d stream series for two topics, want 9: %v", n, got)
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
			if label(x, "stream") == "" {
				continue
			}
			var ls []string
			for _, l := range x.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			out[f.GetName()+"{"+strings.Join(ls, ",")+"}"] = x.GetGauge().GetValue() + x.GetCounter().GetValue()
		}
	}
	return out
}

// /status lists at most statusMaxStreams topics, the most lagging first, and finds
// any other by ?topic=.
func TestStatusStreamRowsAreBoundedAndAnyTopicCanBeAsked(t *testing.T) {
	m := NewMetrics()
	n := statusMaxStreams + 10
	for i := range n {
		m.Streams.topic("d", "temp", fmt.Sprintf("s/%d", i)).lag.Set(float64(i + 1))
	}
	s := newStatusSampler(m, 0, false, nil, statusEvery, statusSpan)
	s.sample(time.UnixMilli(1_700_000_000_000))
	st := s.snapshot(statusTopN)
	if len(st.Streams) != statusMaxStreams || st.StreamsTotal != n || st.Streams[0].Stream != fmt.Sprintf("s/%d", n-1) {
		t.Fatalf("%d rows of %d, first %q: want %d of %d, the most lagging first", len(st.Streams), st.StreamsTotal, st.Streams[0].Stream, statusMaxStreams, n)
	}
	if got := len(s.ring.lags[0]); got != lagKept {
		t.Errorf("the lag ring kept %d streams of a sample, want %d", got, lagKept)
	}
	w := httptest.NewRecorder()
	serveStatus(s)(w, httptest.NewRequest("GET", "/status?topic=s/0", nil))
	var one TopicStatus
	if err := json.Unmarshal(w.Body.Bytes(), &one); err != nil || len(one.Streams) != 1 || *one.Streams[0].LagMS != 1000 {
		t.Errorf("/status?topic=s/0 = %s (%v), want its one row with lag 1000 ms", w.Body.String(), err)
	}
}

// BenchmarkScrape10kTopics gathers the registry with 10,000 topics of one stream
// definition, as a Prometheus scrape does: series by definition, and per topic.
func BenchmarkScrape10kTopics(b *testing.B) {
	for _, perTopic := range []bool{false, true} {
		b.Run(fmt.Sprintf("per_topic=%v", perTopic), func(b *testing.B) {
			m := MetricsFor(configs.Metrics{PerTopic: perTopic})
			for i := range 10_000 {
				x := m.Streams.topic("d", "temp", fmt.Sprintf("sensors/%d/temp", i))
				x.records.n.Add(uint64(i))
				x.watermark.Set(1.7e9)
				x.lag.Set(0.3)
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
	s := newStatusSampler(m, 0, false, nil, statusEvery, statusSpan)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 2000 {
			x := m.Streams.topic("d", "temp", fmt.Sprintf("s/%d", i%100))
			x.records.Inc()
			x.lag.Set(float64(i))
			m.Late.WithLabelValues("d", fmt.Sprintf("s/%d", i%100), reasonTooLate).Inc()
		}
	}()
	now := time.UnixMilli(1_700_000_000_000)
	for i := 0; ; i++ {
		s.sample(now.Add(time.Duration(i) * statusEvery))
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

// A topic's late and dropped counters are made by the first record that needs them;
// actors that race to make them count into the same ones.
func TestTopicReasonsAreMadeOnceByRacingActors(t *testing.T) {
	var ts topicStats
	if ts.read().late[0].load() != 0 || ts.reasons.Load() != nil {
		t.Fatal("reading a topic's counters made them")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				ts.counts().late[0].Inc()
			}
		})
	}
	wg.Wait()
	if n := ts.read().late[0].load(); n != 800 {
		t.Fatalf("counted %d late records, want 800", n)
	}
}
