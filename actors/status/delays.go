package status

import (
	"cmp"
	"slices"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/watermark/tune"
)

// DelayStatus is one stream definition's delay distribution: each reading's delay
// behind the highest event time its topic had accepted, the distribution `edged
// tune` measures from a recording. Quantiles are nearest-rank, each the highest
// delay of its bucket (at most 1/16 above the exact one), the max exact; null
// before the first reading. Counted since Since: the start of edged, or the reload
// that changed the stream's strategy or bound.
type DelayStatus struct {
	Device     string `json:"device"`
	Definition string `json:"definition"`
	Strategy   string `json:"strategy"`
	Since      int64  `json:"since"` // ms, as the sampler saw it
	Readings   int64  `json:"readings"`
	P50MS      *int64 `json:"p50_ms"`
	P90MS      *int64 `json:"p90_ms"`
	P99MS      *int64 `json:"p99_ms"`
	P999MS     *int64 `json:"p999_ms"`
	MaxMS      *int64 `json:"max_ms"`
	// MaxOutOfOrdernessMS is the bound as applied (0 when monotonous); null when
	// punctuated, whose watermark the device's marks set.
	MaxOutOfOrdernessMS *int64 `json:"max_out_of_orderness_ms"`
	// LaterThanBound counts the readings whose delay exceeded the bound: they
	// arrived behind the stream's watermark. Exact, not bucketed.
	LaterThanBound         int64   `json:"later_than_bound"`
	LaterThanBoundFraction float64 `json:"later_than_bound_fraction"`
}

// sampleDelays fills st with the stream definitions' delay distributions, the
// largest fraction later than the bound first, at most statusMaxStreams of them.
// Called under s.mu.
func (s *Sampler) sampleDelays(st *Status, now int64) {
	var rows []DelayStatus
	s.streams.each(func(g *streamGroup) {
		if d := g.delays; d != nil {
			if d.since == 0 {
				d.since = now
			}
			rows = append(rows, delayRow(g, d))
		}
	})
	slices.SortFunc(rows, func(a, b DelayStatus) int {
		return cmp.Or(cmp.Compare(b.LaterThanBoundFraction, a.LaterThanBoundFraction),
			cmp.Compare(a.Device, b.Device), cmp.Compare(a.Definition, b.Definition))
	})
	st.DelaysTotal = len(rows)
	st.Delays = rows[:min(len(rows), statusMaxStreams)]
}

func delayRow(g *streamGroup, d *Delays) DelayStatus {
	late := int64(d.late.Load()) // before the counts, which record bumps first: late <= readings
	h := d.hist.Snapshot()
	x := DelayStatus{Device: g.device, Definition: g.stream, Strategy: d.strategy.String(), Since: d.since, Readings: h.Len()}
	if h.Len() > 0 {
		q := new([5]int64) // one allocation for the five
		for i, p := range []**int64{&x.P50MS, &x.P90MS, &x.P99MS, &x.P999MS, &x.MaxMS} {
			q[i], _ = h.Quantile(tune.Percentiles[i])
			*p = &q[i]
		}
	}
	if d.strategy != watermark.Punctuated {
		b := d.bound
		x.MaxOutOfOrdernessMS = &b
		x.LaterThanBound = late
		if x.Readings > 0 {
			x.LaterThanBoundFraction = float64(late) / float64(x.Readings)
		}
	}
	return x
}
