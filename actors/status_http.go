package actors

import (
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
	connected := func() bool { return d.upstream != nil && d.upstream.connected() }
	return newStatusSampler(d.metrics.Registry, d.cfg.Limits.MaxKeysPerWindow, d.upstream != nil, connected, statusEvery, statusSpan)
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

// serveStatus answers GET /status with the last sample. Read-only.
func serveStatus(s *statusSampler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "/status is read-only: GET only", http.StatusMethodNotAllowed)
			return
		}
		st := s.snapshot(statusTopN)
		if st == nil {
			http.Error(w, "no status sample yet", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(st)
	}
}
