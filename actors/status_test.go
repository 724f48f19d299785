package actors

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/edged/edged/configs"
)

func TestStatusStreamsWindowsAndRates(t *testing.T) {
	m := NewMetrics()
	s := newStatusSampler(m, 100, false, nil, statusEvery, statusSpan)
	t0 := time.UnixMilli(1_700_000_000_000)
	s1, s2 := m.Streams.topic("d", "s", "s/1"), m.Streams.topic("d", "s", "s/2")
	s1.records.n.Add(10)
	s1.lag.Set(1.5)
	s2.idle.Set(1)
	m.Late.WithLabelValues("d", "s/1", reasonFuture).Inc()
	m.Late.WithLabelValues("d", "s/1", reasonFuture).Inc()
	m.Firings.WithLabelValues("d", "w").Add(3)
	m.Keys.WithLabelValues("d", "w").Set(4)
	s1.arrival.Set(float64(t0.UnixMilli()-500) / 1000)
	s.sample(t0)
	s1.records.n.Add(20)
	m.Firings.WithLabelValues("d", "w").Add(2)
	s.sample(t0.Add(2 * time.Second))
	st := s.snapshot(statusTopN)
	byName := map[string]StreamStatus{}
	for _, x := range st.Streams {
		byName[x.Stream] = x
	}
	r1, r2 := byName["s/1"], byName["s/2"]
	if r1.RecordsPerS != 10 || r1.Records != 30 || *r1.LagMS != 1500 || r1.Late[reasonFuture] != 2 || *r1.LastRecordMS != 2500 || r1.Idle || r1.Definition != "s" {
		t.Errorf("s/1: %+v", r1)
	}
	if !r2.Idle || r2.Since != t0.UnixMilli() {
		t.Errorf("s/2 should be idle since the first sample: %+v", r2)
	}
	if st.StreamsTotal != 2 {
		t.Errorf("streams_total = %d, want 2", st.StreamsTotal)
	}
	if len(st.Windows) != 1 || st.Windows[0].FiringsPerMin != 60 || st.Windows[0].MaxKeysPerWindow != 100 || st.Windows[0].Keys != 4 {
		t.Errorf("windows: %+v", st.Windows)
	}
	if len(st.Lag.Times) != 2 || len(st.Lag.Series["d/s/1"]) != 2 {
		t.Errorf("lag history: %+v", st.Lag)
	}
}

func TestStatusLagRingIsBounded(t *testing.T) {
	r := newLagRing(3, 2000)
	for i := range 5 {
		r.add(int64(i), map[string]float64{"a": float64(i)})
	}
	h := r.history(1)
	if fmt.Sprint(h.Times) != "[2 3 4]" || fmt.Sprint(h.Series["a"]) != "[2 3 4]" {
		t.Errorf("ring: %+v", h)
	}
}

// BenchmarkStatus10kStreams builds the status of 10,000 streams, as the sampler does
// every statusEvery; per-topic series do not make it gather them.
func BenchmarkStatus10kStreams(b *testing.B) {
	for _, perTopic := range []bool{false, true} {
		b.Run(fmt.Sprintf("per_topic=%v", perTopic), func(b *testing.B) {
			m := MetricsFor(configs.Metrics{PerTopic: perTopic})
			for i := range 10_000 {
				dev, topic := fmt.Sprintf("dev%d", i%10), fmt.Sprintf("sensors/%d/temp", i)
				x := m.Streams.topic(dev, "temp", topic)
				x.records.n.Add(uint64(i))
				x.watermark.Set(1.7e9)
				x.lag.Set(0.3)
				x.maxEvent.Set(1.7e9)
				x.arrival.Set(1.7e9)
			}
			s := newStatusSampler(m, 0, false, nil, statusEvery, statusSpan)
			now := time.Now()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				s.sample(now.Add(time.Duration(i) * statusEvery))
				_ = s.snapshot(statusTopN)
			}
		})
	}
}

func TestStatusPageIsReadOnly(t *testing.T) {
	for _, c := range []struct {
		method, path string
		code         int
	}{{"GET", "/", 200}, {"POST", "/", 405}, {"GET", "/nope", 404}} {
		w := httptest.NewRecorder()
		servePage(w, httptest.NewRequest(c.method, c.path, nil))
		if w.Code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, w.Code, c.code)
		}
	}
}

// Windows fire in bursts at their ends: a per-minute rate over one 2 s sampling
// interval reads 0 between bursts. It must cover the last minute.
func TestStatusFiringsPerMinuteCoverTheLastMinuteNotOneInterval(t *testing.T) {
	m := NewMetrics()
	s := newStatusSampler(m, 100, false, nil, 2*time.Second, time.Minute)
	t0 := time.UnixMilli(1_700_000_000_000)
	firings := m.Firings.WithLabelValues("d", "w")
	for i := range 31 { // 60 s of 2 s samples; 8 results at every fifth sample (a 10 s window, 8 keys)
		if i > 0 && i%5 == 0 {
			firings.Add(8)
		}
		s.sample(t0.Add(time.Duration(i) * 2 * time.Second))
	}
	st := s.snapshot(statusTopN)
	if len(st.Windows) != 1 || st.Windows[0].FiringsPerMin != 48 {
		t.Errorf("firings per minute = %+v, want 48 (6 bursts of 8 in the last 60 s)", st.Windows)
	}
	// Past the minute, the rate forgets the bursts before it.
	for i := 31; i < 61; i++ {
		s.sample(t0.Add(time.Duration(i) * 2 * time.Second))
	}
	if st := s.snapshot(statusTopN); st.Windows[0].FiringsPerMin != 0 {
		t.Errorf("firings per minute a minute after the last burst = %v, want 0", st.Windows[0].FiringsPerMin)
	}
}
