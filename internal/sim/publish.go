package sim

import (
	"context"
	"sync/atomic"
	"time"
)

// Publisher sends one MQTT message; done (never nil here) reports the outcome,
// for QoS 1 once the broker acknowledged it. *mqtt.Client is one.
type Publisher interface {
	Publish(topic string, qos byte, payload []byte, done func(error))
}

// PaceEvery is the granularity of Publish's pacing: every tick it sends all
// messages that came due.
const PaceEvery = 10 * time.Millisecond

// Publish sends the feed to p at the pace of the wall clock: the message with
// send time At goes out at the moment Publish started plus At-Start. It
// returns once every message sent was confirmed (QoS 1: acknowledged), or when
// ctx is done. The summary counts what was handed to the broker; Failed counts
// the publishes that failed or were still unconfirmed on return.
func Publish(ctx context.Context, f *Feed, p Publisher, qos byte) Summary {
	t := NewTally(f.cfg)
	var ok, settled, sent atomic.Int64
	allSettled := make(chan struct{}, 1)
	var finished atomic.Bool // sending is over: the last callback signals allSettled
	done := func(err error) {
		if err == nil {
			ok.Add(1)
		}
		if n := settled.Add(1); finished.Load() && n == sent.Load() {
			select {
			case allSettled <- struct{}{}:
			default:
			}
		}
	}
	began := time.Now()
	tick := time.NewTicker(PaceEvery)
	defer tick.Stop()
	m, more := f.Next()
	for more && ctx.Err() == nil {
		due := time.Since(began).Milliseconds() + f.cfg.Start
		for more && m.At <= due {
			sent.Add(1)
			p.Publish(m.Topic, qos, m.Payload, done)
			t.Add(&m)
			m, more = f.Next()
		}
		if more {
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	}
	finished.Store(true)
	if settled.Load() < sent.Load() {
		select {
		case <-allSettled:
		case <-ctx.Done():
		}
	}
	s := t.Summary()
	s.Failed = s.Total - int(ok.Load())
	return s
}
