package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

func TestEdgedRidesOutABrokerRestart(t *testing.T) {
	t.Parallel()
	const seed = 11
	t.Logf("seed %d", seed)
	tests := []struct {
		name string
		qos  int
	}{
		// A clean session loses its subscriptions with the connection: edged
		// must subscribe again after reconnecting.
		{"a clean session, QoS 0 streams", 0},
		// A persistent session is restored by the broker; readings edged had
		// not acknowledged are redelivered and must count once.
		{"a persistent session, QoS 1 streams", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mq := broker.Start(t)
			p := fmt.Sprintf("pl-restart-%d", time.Now().UnixNano())
			// idle_timeout 0: no window fires for want of data while the broker
			// is down; a closing reading far ahead fires the last ones.
			path := harness.WriteConfig(t, daemonYAML("memory", mq.URL(), p), map[string]string{"d.yaml": tumblingDevice{
				device: "d", stream: "sensors", topic: p + "/+/data", qos: tt.qos,
				watermark:  "{strategy: bounded, max_out_of_orderness: 100ms, interval: 20ms, idle_timeout: 0s}",
				aggregates: "[count, sum(temp), max(temp)]",
				output:     p + "/out/{key}",
			}.yaml()})
			results := plCollect(t, mq.URL(), p+"/out/#", true)
			e := harness.Start(t, path)
			pub := plPublish(t, mq.URL())

			// Two sensors, 100 readings each over about 2.5 s of event time: the
			// first half before the restart, the second after it.
			feed := map[string][]oracle.Event{}
			for i, sensor := range []string{"a", "b"} {
				feed[sensor] = oracle.Generate(oracle.Config{Seed: seed + uint64(i), Keys: 1, Events: 100, Start: plT0, Step: 25, Disorder: 80, Fields: plTemp})
				for j := range feed[sensor] {
					feed[sensor][j].Key = sensor
				}
			}
			n := 0
			send := func(from, to int) {
				for _, sensor := range []string{"a", "b"} {
					for _, ev := range feed[sensor][from:to] {
						pub.send(p+"/"+sensor+"/data", plReading{Sensor: sensor, N: n, Event: ev}.payload())
						n++
					}
				}
				pub.flush()
			}
			send(0, 50)
			harness.Eventually(t, 10*time.Second, "the first windows of both sensors before the restart", func() bool {
				return len(harness.Latest(results.results(t))) >= 2
			})
			if code := plHealth(e.HTTPAddr()); code != 200 {
				t.Fatalf("/healthz = %d while connected, want 200", code)
			}

			mq.Stop()
			harness.Eventually(t, 10*time.Second, "/healthz 503 and edged_broker_connected 0 while the broker is down", func() bool {
				return plHealth(e.HTTPAddr()) == 503 && plMetric(t, e, "edged_broker_connected", nil) == 0
			})
			mq.Restart()
			// edged_broker_connected is set once the subscriptions are in place.
			harness.Eventually(t, 15*time.Second, "/healthz 200 and edged subscribed again after the restart", func() bool {
				return plHealth(e.HTTPAddr()) == 200 && plMetric(t, e, "edged_broker_connected", nil) == 1
			})

			// A client publishing while it reconnects resends what it held in
			// any order; the sensors of this test publish once connected.
			pub = plPublish(t, mq.URL())
			send(50, 100)
			var accepted []oracle.Event
			for _, sensor := range []string{"a", "b"} {
				accepted = append(accepted, feed[sensor]...)
				closing := oracle.Event{Key: sensor, TS: plT0 + 10_000, Values: []windows.Value{windows.NumberValue(0)}}
				pub.send(p+"/"+sensor+"/data", plReading{Sensor: sensor, N: n, Event: closing}.payload())
				n++
			}
			pub.flush()

			aggs, err := windows.ParseAggregates([]string{"count", "sum(temp)", "max(temp)"})
			if err != nil {
				t.Fatal(err)
			}
			want := oracle.Compute(windows.Tumbling(1000, 0), aggs, accepted)
			harness.Eventually(t, 15*time.Second, "every window of both sensors after the restart", func() bool {
				return plCount(results.results(t), "d", "w") == len(accepted) && len(harness.Latest(results.results(t))) >= len(want)
			})
			// The closing readings' window has not fired, so it is not expected.
			plCheckAgainstOracle(t, results.results(t), "d", "w", 1000, aggs, accepted)
		})
	}
}
