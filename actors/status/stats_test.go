package status

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// /status lists at most statusMaxStreams topics, the most lagging first, and finds
// any other by ?topic=.
func TestStatusStreamRowsAreBoundedAndAnyTopicCanBeAsked(t *testing.T) {
	stats := NewStats()
	n := statusMaxStreams + 10
	for i := range n {
		stats.Topic("d", "temp", fmt.Sprintf("s/%d", i)).Lag.Set(float64(i + 1))
	}
	s := NewSampler(prometheus.NewRegistry(), stats, 0, nil, nil)
	s.Sample(time.UnixMilli(1_700_000_000_000))
	st := s.Snapshot()
	if len(st.Streams) != statusMaxStreams || st.StreamsTotal != n || st.Streams[0].Stream != fmt.Sprintf("s/%d", n-1) {
		t.Fatalf("%d rows of %d, first %q: want %d of %d, the most lagging first", len(st.Streams), st.StreamsTotal, st.Streams[0].Stream, statusMaxStreams, n)
	}
	if got := len(s.ring.lags[0]); got != lagKept {
		t.Errorf("the lag ring kept %d streams of a sample, want %d", got, lagKept)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/status?topic=s/0", nil))
	var one topicStatus
	if err := json.Unmarshal(w.Body.Bytes(), &one); err != nil || len(one.Streams) != 1 || *one.Streams[0].LagMS != 1000 {
		t.Errorf("/status?topic=s/0 = %s (%v), want its one row with lag 1000 ms", w.Body.String(), err)
	}
}

// A topic's late and dropped counters are made by the first record that needs them;
// actors that race to make them count into the same ones.
func TestTopicReasonsAreMadeOnceByRacingActors(t *testing.T) {
	var ts Topic
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
