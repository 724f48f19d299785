package uplink

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/natsbroker"
)

// BenchmarkUplinkThroughput drains an outbox of 4 devices × 5,000 late records to a
// real local server, unpaced (no max_rate), in batches of 100: over MQTT as one QoS 1
// message per batch to Mosquitto, over JetStream as one message per record with its
// Nats-Msg-Id to nats-server with a file-backed stream. A record counts once its
// ack came back and the outbox let it go. Run:
//
//	go test -run '^$' -bench UplinkThroughput -benchtime 3x ./actors/uplink/
func BenchmarkUplinkThroughput(b *testing.B) {
	const devices, perDevice = 4, 5000
	for _, tr := range []struct {
		name  string
		setup func(b *testing.B) configs.Upstream
	}{
		{"mqtt", func(b *testing.B) configs.Upstream {
			cfg := upConfig(100, 0, 0)
			cfg.URL, cfg.ClientID = broker.Start(b).URL(), "edged-bench"
			return cfg
		}},
		{"jetstream", func(b *testing.B) configs.Upstream {
			cfg := upConfig(100, 0, 0)
			cfg.URL, cfg.ClientID = natsbroker.Start(b).URL(), "edged-bench"
			cfg.NATS.JetStream = configs.JetStream{CreateStream: true, Stream: "BENCH", Storage: "file", DuplicateWindow: time.Hour}
			return cfg
		}},
	} {
		b.Run(tr.name, func(b *testing.B) {
			cfg := tr.setup(b)
			records := slices.Repeat([]string{"s"}, perDevice)
			var elapsed time.Duration
			for i := range b.N {
				h, stop := startUpEdged(b, b.TempDir(), cfg)
				upEventually(b, 10*time.Second, "connected", h.link.Connected)
				var batches []*outbox.Enqueued
				for d := range devices {
					dev := fmt.Sprintf("bench%d-%d", i, d)
					entries := h.enqueue(dev, records, 0, 0, false)
					batches = append(batches, &outbox.Enqueued{Queue: outbox.UpstreamQueue(dev), Entries: entries, ReplyTo: h.committer})
				}
				start := time.Now()
				for _, m := range batches {
					h.system.Root.Send(h.pid, m)
				}
				upEventually(b, time.Minute, "the outbox drained", func() bool {
					for _, m := range batches {
						if h.store.Stats(m.Queue).Records > 0 {
							return false
						}
					}
					return true
				})
				elapsed += time.Since(start)
				stop()
			}
			b.ReportMetric(float64(devices*perDevice*b.N)/elapsed.Seconds(), "records/s")
		})
	}
}
