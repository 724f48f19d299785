package actors

import (
	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/watermark"
)

// refuseKey sends a reading of a new key past limits.max_keys_per_window to its
// window's late output with reason key_limit, instead of spawning another window
// actor: each costs memory for as long as edged runs, and a flood of distinct keys
// (a bad sensor, a wrong key field) must not take the gateway down. Its outbox entry,
// dedup mark and ack commit together, as for any late record.
func (p *pipeline) refuseKey(m *routeRecord) {
	r, wp, dev := m.rec, &p.plan.windows[m.win], p.plan.device.ID
	if r.Dup {
		if seen, err := p.env.store.HasMark(dev, wp.cfg.Name, r.Key, r.ID); err == nil && seen {
			p.env.metrics.Duplicates.WithLabelValues(dev).Inc()
			r.ack.Done()
			return
		}
	}
	p.env.metrics.Late.WithLabelValues(dev, r.Stream, status.KeyLimit).Inc()
	p.refusedLog.log(p.log, r.Arrived, "a new key is past limits.max_keys_per_window; its readings go to the late output",
		"window", wp.cfg.Name, "key", r.Key, "limit", p.env.maxKeys)
	u := routeLate(p.env, &p.refused, wp.cfg, &lateRecord{
		Device: dev, Stream: r.Stream, Window: wp.cfg.Name, Key: r.Key, TS: r.TS,
		Watermark: watermark.Min, ReceivedAt: r.Arrived, Reason: status.KeyLimit, Payload: r.Payload,
	})
	if u == nil {
		u = p.refused.Main()
	}
	if r.QoS > 0 {
		u.Marks = append(u.Marks, commit.MarkPut{Window: wp.cfg.Name, Key: r.Key, ID: r.ID})
	}
	u.Acks = append(u.Acks, r.ack)
	if p.refused.Main().Full(0, 0) {
		p.refused.CloseMain()
	}
}
