package actors

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"time"
)

// The lag ring holds statusSpan of samples taken every statusEvery: 150 columns.
const (
	statusEvery = 2 * time.Second
	statusSpan  = 5 * time.Minute
	// statusTopN bounds the lag history served: the most lagging streams, which
	// are the ones an operator looks for, not all of 10,000.
	statusTopN = 20
)

func (d *Daemon) newStatusSampler() *statusSampler {
	connected := func() bool { return d.upstream != nil && d.upstream.Connected() }
	s := newStatusSampler(d.metrics, d.cfg.Limits.MaxKeysPerWindow, d.upstream != nil, connected, statusEvery, statusSpan)
	s.config = d.configStatus
	return s
}

// statusLoop samples the registry until the daemon stops; the first sample is
// taken at once so /status answers right after start.
func (d *Daemon) statusLoop(s *statusSampler) {
	defer d.ticks.Done()
	s.sample(time.Now())
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	for {
		select {
		case <-d.stopTicks:
			return
		case now := <-t.C:
			s.sample(now)
		}
	}
}

// statusPage is the page at /: one self-contained file that only reads /status.
//
//go:embed status.html
var statusPage []byte

// servePage answers GET / with the status page, and 404 for any other path the
// mux sends here.
func servePage(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "the status page is read-only: GET only", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(statusPage)
}

// serveStatus answers GET /status with the last sample, and GET /status?topic=T with
// the rows of concrete topic T alone (on every device). Read-only.
func serveStatus(s *statusSampler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "/status is read-only: GET only", http.StatusMethodNotAllowed)
			return
		}
		if topic := r.URL.Query().Get("topic"); topic != "" {
			now := time.Now().UnixMilli()
			writeJSON(w, &TopicStatus{Now: now, Streams: s.topicRows(topic, now)})
			return
		}
		st := s.snapshot(statusTopN)
		if st == nil {
			http.Error(w, "no status sample yet", http.StatusServiceUnavailable)
			return
		}
		writeJSON(w, st)
	}
}

// TopicStatus is what /status?topic= serves.
type TopicStatus struct {
	Now     int64          `json:"now"`
	Streams []StreamStatus `json:"streams"`
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}
