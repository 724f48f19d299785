package actors

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/configs"
)

// sampler is the /status sampler of m, as the daemon builds it without an uplink.
func sampler(m *Metrics, maxKeys int) *status.Sampler {
	return status.NewSampler(m.status, m.Streams, maxKeys, nil, nil)
}

func TestStatusStreamsWindowsAndRates(t *testing.T) {
	m := NewMetrics()
	s := sampler(m, 100)
	t0 := time.UnixMilli(1_700_000_000_000)
	s1, s2 := m.Streams.Topic("d", "s", "s/1"), m.Streams.Topic("d", "s", "s/2")
	for range 10 {
		s1.Records.Inc()
	}
	s1.Lag.Set(1.5)
	s2.Idle.Set(1)
	m.Late.WithLabelValues("d", "s/1", status.Future).Inc()
	m.Late.WithLabelValues("d", "s/1", status.Future).Inc()
	m.Firings.WithLabelValues("d", "w").Add(3)
	m.Keys.WithLabelValues("d", "w").Set(4)
	s1.Arrival.Set(float64(t0.UnixMilli()-500) / 1000)
	s.Sample(t0)
	for range 20 {
		s1.Records.Inc()
	}
	m.Firings.WithLabelValues("d", "w").Add(2)
	s.Sample(t0.Add(2 * time.Second))
	st := s.Snapshot()
	byName := map[string]status.StreamStatus{}
	for _, x := range st.Streams {
		byName[x.Stream] = x
	}
	r1, r2 := byName["s/1"], byName["s/2"]
	if r1.RecordsPerS != 10 || r1.Records != 30 || *r1.LagMS != 1500 || r1.Late[status.Future] != 2 || *r1.LastRecordMS != 2500 || r1.Idle || r1.Definition != "s" {
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

// BenchmarkStatus10kStreams builds the status of 10,000 streams, as the sampler does
// every status.Every; per-topic series do not make it gather them.
func BenchmarkStatus10kStreams(b *testing.B) {
	for _, perTopic := range []bool{false, true} {
		b.Run(fmt.Sprintf("per_topic=%v", perTopic), func(b *testing.B) {
			m := MetricsFor(configs.Metrics{PerTopic: perTopic})
			for i := range 10_000 {
				dev, topic := fmt.Sprintf("dev%d", i%10), fmt.Sprintf("sensors/%d/temp", i)
				x := m.Streams.Topic(dev, "temp", topic)
				x.Records.Inc()
				x.Watermark.Set(1.7e9)
				x.Lag.Set(0.3)
				x.MaxEvent.Set(1.7e9)
				x.Arrival.Set(1.7e9)
			}
			s := sampler(m, 0)
			now := time.Now()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				s.Sample(now.Add(time.Duration(i) * status.Every))
				_ = s.Snapshot()
			}
		})
	}
}

// Windows fire in bursts at their ends: a per-minute rate over one 2 s sampling
// interval reads 0 between bursts. It must cover the last minute.
func TestStatusFiringsPerMinuteCoverTheLastMinuteNotOneInterval(t *testing.T) {
	m := NewMetrics()
	s := sampler(m, 100)
	t0 := time.UnixMilli(1_700_000_000_000)
	firings := m.Firings.WithLabelValues("d", "w")
	for i := range 31 { // 60 s of 2 s samples; 8 results at every fifth sample (a 10 s window, 8 keys)
		if i > 0 && i%5 == 0 {
			firings.Add(8)
		}
		s.Sample(t0.Add(time.Duration(i) * 2 * time.Second))
	}
	st := s.Snapshot()
	if len(st.Windows) != 1 || st.Windows[0].FiringsPerMin != 48 {
		t.Errorf("firings per minute = %+v, want 48 (6 bursts of 8 in the last 60 s)", st.Windows)
	}
	// Past the minute, the rate forgets the bursts before it.
	for i := 31; i < 61; i++ {
		s.Sample(t0.Add(time.Duration(i) * 2 * time.Second))
	}
	if st := s.Snapshot(); st.Windows[0].FiringsPerMin != 0 {
		t.Errorf("firings per minute a minute after the last burst = %v, want 0", st.Windows[0].FiringsPerMin)
	}
}

func TestStatusShowsEachWindowsOldestOpenWindowNextFiringAndLateRecords(t *testing.T) {
	d, send := explainFixture(t) // key a: [t0+2 s, t0+3 s) and [t0+4 s, t0+5 s) open, one reading too late
	d.status.Sample(time.UnixMilli(t0))
	row := func() status.WindowStatus {
		t.Helper()
		rec := httptest.NewRecorder()
		d.status.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
		var st status.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || len(st.Windows) != 1 {
			t.Fatalf("/status: %v: %s", err, rec.Body)
		}
		for _, field := range []string{`"oldest_open":{"key":"a",`, `"next_firing":{"key":"a",`, `"late":1,`} {
			if !strings.Contains(rec.Body.String(), field) {
				t.Errorf("no %s in /status: %s", field, rec.Body)
			}
		}
		return st.Windows[0]
	}
	w := row()
	if *w.OldestOpen != (status.WindowRef{Key: "a", Start: t0 + 2000, End: t0 + 3000}) || w.Late != 1 {
		t.Errorf("oldest open %+v, late %d", w.OldestOpen, w.Late)
	}
	if n := w.NextFiring; n.WindowRef != *w.OldestOpen || n.FiresAt != t0+2999 || *n.KeyWatermark != t0+2499 {
		t.Errorf("next firing %+v (key watermark %d)", n, *n.KeyWatermark)
	}
	send(3100, "t/2", `{"k":"a","ts":1733140003500}`) // [t0+2 s, t0+3 s) fires, kept for its lateness; [t0+3 s, t0+4 s) opens
	w = row()
	if n := w.NextFiring; w.OldestOpen.Start != t0+2000 || n.Start != t0+3000 || n.FiresAt != t0+3999 || *n.KeyWatermark != t0+3499 {
		t.Errorf("after the first firing: oldest open %+v, next firing %+v", w.OldestOpen, n)
	}
}
