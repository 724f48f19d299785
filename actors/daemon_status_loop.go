package actors

import (
	"time"

	"github.com/edged/edged/actors/status"
)

func (d *Daemon) newStatusSampler() *status.Sampler {
	var connected func() bool
	if d.upstream != nil {
		connected = d.upstream.Connected
	}
	s := status.NewSampler(d.metrics.status, d.metrics.Streams, d.cfg.Limits.MaxKeysPerWindow, connected, d.configStatus)
	s.SetWindows(d.windowSummaries)
	return s
}

// statusLoop samples the registry until the daemon stops; the first sample is
// taken at once so /status answers right after start. At rest it samples every
// status.RestEvery, and a stream that comes back wakes it (status/rest.go).
func (d *Daemon) statusLoop(s *status.Sampler) {
	defer d.ticks.Done()
	s.Sample(time.Now())
	t := time.NewTimer(s.Next())
	defer t.Stop()
	for {
		select {
		case <-d.stopTicks:
			return
		case <-d.metrics.Streams.Woken():
			if !s.Resting() {
				continue // sampling every status.Every already
			}
		case <-t.C:
		}
		s.Sample(time.Now())
		t.Reset(s.Next())
	}
}
