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
// taken at once so /status answers right after start.
func (d *Daemon) statusLoop(s *status.Sampler) {
	defer d.ticks.Done()
	s.Sample(time.Now())
	t := time.NewTicker(status.Every)
	defer t.Stop()
	for {
		select {
		case <-d.stopTicks:
			return
		case now := <-t.C:
			s.Sample(now)
		}
	}
}
