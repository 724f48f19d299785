package status

import (
	"sync/atomic"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/watermark/tune"
)

// Delays is the distribution, over a stream definition's readings, of each
// reading's delay behind its own topic's max event time: what `edged tune`
// measures from a recording, live. The delay is tune.Delay and the buckets are
// tune.Hist, so on the same readings both report the same quantiles to within
// a bucket (1/16 of the value), and the same count of readings later than the
// bound exactly. One per stream definition, not per topic: about 3.7 KB.
//
// It counts from the start of edged, or from the last reload that changed the
// stream's watermark strategy or bound: the late count is against the bound in
// force, and mixing bounds would make it mean nothing.
type Delays struct {
	hist     tune.Hist
	late     atomic.Uint64 // readings with a delay above bound
	strategy watermark.Strategy
	bound    int64 // ms: max_out_of_orderness as applied (0 when monotonous)

	since int64 // ms: when the status sampler first saw it; under the sampler's lock
}

// appliedBound is the bound a stream configured with cfg runs with: the
// generator's, zero but for the bounded strategy.
func appliedBound(cfg watermark.Config) int64 {
	if cfg.Strategy != watermark.Bounded {
		return 0
	}
	return max(cfg.MaxOutOfOrderness, 0)
}

// Record adds an accepted reading with event time ts, its topic's max event time
// being maxAfter once the reading was taken. It takes no lock and allocates
// nothing: it is on the record path.
func (d *Delays) Record(maxAfter, ts int64) {
	delay := tune.Delay(maxAfter, ts)
	d.hist.Record(delay)
	if delay > d.bound && d.strategy != watermark.Punctuated {
		d.late.Add(1)
	}
}

// Delays returns the delay statistics of topic t's stream definition for a stream
// configured with cfg: the definition's, unless they were counted under another
// strategy or bound, in which case they start afresh.
func (s *Stats) Delays(t *Topic, cfg watermark.Config) *Delays {
	g := t.group
	bound := appliedBound(cfg)
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := g.delays; d != nil && d.strategy == cfg.Strategy && d.bound == bound {
		return d
	}
	g.delays = &Delays{strategy: cfg.Strategy, bound: bound}
	return g.delays
}
