package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// statusTimeout bounds how long /status waits for a pipeline's window summaries;
// a device that does not answer in time shows none.
const statusTimeout = 500 * time.Millisecond

// windowSummaries asks every pipeline for its window definitions' oldest open
// window and next firing, then the key of each next firing for its watermark:
// what /status shows per window definition (window_summary.go, pipeline_explain.go).
func (d *Daemon) windowSummaries() []status.WindowSummary {
	devs := d.devices()
	asked := make([]*actor.Future, len(devs))
	for i, t := range devs {
		asked[i] = d.topo.system.Root.RequestFuture(t.pid, &summariesWanted{}, statusTimeout)
	}
	type nextKey struct {
		at     int // in out
		future *actor.Future
	}
	var out []status.WindowSummary
	var keys []nextKey
	for i, t := range devs {
		res, err := asked[i].Result()
		sums, _ := res.([]windowSummary)
		if err != nil {
			continue
		}
		for _, s := range sums {
			x := status.WindowSummary{Device: t.plan.device.ID, Window: t.plan.windows[s.win].cfg.Name}
			if s.oldest != (windows.Window{}) {
				x.OldestOpen = &status.WindowRef{Key: s.oldestKey, Start: s.oldest.Start, End: s.oldest.End}
			}
			if s.next != (windows.Window{}) {
				x.NextFiring = &status.NextFiring{
					WindowRef: status.WindowRef{Key: s.nextKey, Start: s.next.Start, End: s.next.End},
					FiresAt:   s.next.MaxTimestamp(),
				}
				f := d.topo.system.Root.RequestFuture(t.pid, &explainWanted{win: s.win, key: s.nextKey}, statusTimeout)
				keys = append(keys, nextKey{len(out), f})
			}
			out = append(out, x)
		}
	}
	for _, k := range keys {
		res, err := k.future.Result()
		if a, ok := res.(*keyExplained); err == nil && ok && a.state != nil && a.state.Watermark != watermark.Min {
			wm := a.state.Watermark
			out[k.at].NextFiring.KeyWatermark = &wm
		}
	}
	return out
}
