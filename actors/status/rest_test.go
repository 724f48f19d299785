package status

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// woken reports whether stats woke the sampler since the last call.
func woken(stats *Stats) bool {
	select {
	case <-stats.Woken():
		return true
	default:
		return false
	}
}

// The sampler rests only when every topic is idle or passivated and nothing moved
// between two samples; anything that moves brings back sampling every Every.
func TestTheSamplerRestsOnlyWhenNothingMoves(t *testing.T) {
	reg := prometheus.NewRegistry()
	commits := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "edged_commit_duration_seconds"})
	reg.MustRegister(commits)
	stats := NewStats()
	a, b := stats.Topic("d", "s", "s/a"), stats.Topic("d", "s", "s/b")
	s := NewSampler(reg, stats, 0, nil, nil)
	at := time.UnixMilli(1_700_000_000_000)
	step := func(what string, want time.Duration) {
		t.Helper()
		at = at.Add(s.Next())
		s.Sample(at)
		if got := s.Next(); got != want {
			t.Errorf("%s: next sample in %v, want %v", what, got, want)
		}
	}
	step("the first sample", Every)
	step("two topics active", Every)
	a.SetIdle(true)
	step("one of two topics idle", Every)
	b.SetPassivated(true)
	step("one topic idle, the other passivated, first sample so", RestEvery)
	step("still at rest", RestEvery)
	commits.Observe(0.001)
	step("a commit", Every)
	step("at rest again", RestEvery)
	a.Records.Inc()
	step("a record on an idle topic", Every)
	step("at rest again", RestEvery)
	stats.Topic("d", "s", "s/c")
	step("a new topic", Every)
}

// A stream that comes back wakes a resting sampler; one that goes to rest does not.
func TestAStreamThatComesBackWakesTheSampler(t *testing.T) {
	stats := NewStats()
	x := stats.Topic("d", "s", "s/x")
	if !woken(stats) {
		t.Error("a new topic did not wake the sampler")
	}
	x.SetIdle(false)
	x.SetIdle(true)
	x.SetPassivated(true)
	if woken(stats) {
		t.Error("a topic going to rest woke the sampler")
	}
	x.SetIdle(false)
	if !woken(stats) {
		t.Error("a topic turning active did not wake the sampler")
	}
	x.SetPassivated(false)
	if !woken(stats) {
		t.Error("a reactivated topic did not wake the sampler")
	}
	stats.Topic("d", "s", "s/x")
	if woken(stats) {
		t.Error("asking for a known topic woke the sampler")
	}
}

// /status samples on demand when the last sample is older than Every, so it shows
// the present while the sampler rests; a younger sample is served as it is.
func TestStatusSamplesOnDemandWhenItsSampleIsOld(t *testing.T) {
	stats := NewStats()
	x := stats.Topic("d", "s", "s/x")
	s := NewSampler(prometheus.NewRegistry(), stats, 0, nil, nil)
	get := func() *Status {
		t.Helper()
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", "/status", nil))
		var st Status
		if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil {
			t.Fatalf("/status: %v: %s", err, w.Body.String())
		}
		return &st
	}
	old := time.Now().Add(-RestEvery)
	s.Sample(old)
	x.Records.Inc()
	if st := get(); st.Now < time.Now().Add(-Every).UnixMilli() || st.Streams[0].Records != 1 {
		t.Errorf("/status served a sample from %v with %d records, want one taken now with 1", time.UnixMilli(st.Now), st.Streams[0].Records)
	}
	young := time.Now()
	s.Sample(young)
	x.Records.Inc()
	if st := get(); st.Now != young.UnixMilli() || st.Streams[0].Records != 1 {
		t.Errorf("/status served a sample from %v with %d records, want the one from %v with 1", time.UnixMilli(st.Now), st.Streams[0].Records, young)
	}
}
