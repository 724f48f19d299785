package actors

import (
	"strings"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/configs"
)

// routeLate puts a late record where its window's `late` setting says: an outbox
// entry in a spill unit of p, which it returns so the caller adds the record's mark
// and ack to it; nil when the record went nowhere (drop, or no upstream to ship it).
func routeLate(e *env, p *pendingUnits, cfg *configs.Window, l *lateRecord) *unit {
	dest := cfg.Late
	switch {
	case dest == "drop":
		return nil
	case strings.HasPrefix(dest, "topic:"):
		u := p.SpillUnit()
		u.AddOutbox(&e.outputs, commit.OutboxPut{
			Queue: commit.ResultsQueue(l.Device),
			Entry: outboxEntry{Topic: strings.TrimPrefix(dest, "topic:"), QoS: cfg.Output.QoS, Payload: e.produced(appendLate(nil, l))},
		})
		return u
	case e.late == nil:
		e.metrics.UnshippedLate.WithLabelValues(l.Device).Inc()
		e.log.Info("late record (no upstream configured)", "device", l.Device, "window", cfg.Name,
			"key", l.Key, "ts", l.TS, "watermark", l.Watermark, "reason", l.Reason)
		return nil
	default:
		u := p.SpillUnit()
		u.AddOutbox(&e.outputs, commit.OutboxPut{
			Queue: outbox.UpstreamQueue(l.Device),
			Entry: outboxEntry{Topic: "late/" + l.Stream, QoS: 1, Payload: e.produced(appendLate(nil, l))},
		})
		return u
	}
}
