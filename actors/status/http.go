package status

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"time"
)

// statusPage is the page at /: one self-contained file that only reads /status.
//
//go:embed status.html
var statusPage []byte

// ServePage answers GET / with the status page, and 404 for any other path the
// mux sends here.
func ServePage(w http.ResponseWriter, r *http.Request) {
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

// ServeHTTP answers GET /status with the last sample, and GET /status?topic=T with
// the rows of concrete topic T alone (on every device). Read-only.
func (s *Sampler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "/status is read-only: GET only", http.StatusMethodNotAllowed)
		return
	}
	if topic := r.URL.Query().Get("topic"); topic != "" {
		now := time.Now().UnixMilli()
		writeJSON(w, &topicStatus{Now: now, Streams: s.topicRows(topic, now)})
		return
	}
	s.Refresh(time.Now())
	st := s.Snapshot()
	if st == nil {
		http.Error(w, "no status sample yet", http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, st)
}

// topicStatus is what /status?topic= serves.
type topicStatus struct {
	Now     int64          `json:"now"`
	Streams []StreamStatus `json:"streams"`
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}
