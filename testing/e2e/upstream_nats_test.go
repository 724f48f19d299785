package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/natsbroker"
)

// With a JetStream uplink every late record is stored once, whatever happens on
// the way: the NATS server down while records arrive, edged killed (-9) while it
// drains the backlog, the NATS server restarted while edged sends. Records that
// JetStream stored but edged had not yet deleted from its outbox when it was
// killed are sent again and dropped by the server as duplicates of their
// Nats-Msg-Id ({topic_prefix}/<device>-<seq>), which edged counts.
func TestJetStreamUplinkStoresEveryLateRecordOnceThroughOutageCrashAndServerRestart(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	devices, keys := []string{"gw-a", "gw-b"}, upKeys(4)
	local, srv := broker.Start(t), natsbroker.Start(t)
	s := upConfig(t, local.URL(), upPrefix("js"), 1, upUplink{url: srv.URL(), maxRecords: 20, maxRate: 1000,
		maxBytes: 64 << 20, whenFull: "drop_oldest", extra: "  jetstream: {create_stream: true, stream: EDGED}\n"}, devices...)
	e := crashStart(t, bin, s.config)
	metric := func(name string) float64 { return upMetric(t, e.httpAddr, name, nil) }
	harness.Eventually(t, 10*time.Second, "edged connected to NATS", func() bool {
		return metric("edged_upstream_connected") == 1
	})
	pub := upPublish(t, local.URL(), s.prefix+"-pub")
	fired := s.upOnTime(pub, 1, devices, keys)
	harness.Eventually(t, 10*time.Second, "the on-time windows fired", func() bool {
		return metric("edged_window_firings_total") >= float64(fired)
	})
	next := 0
	feed := func(n int) {
		for range n {
			for _, d := range devices {
				pub.send(s.upTopic(d, keys[next%len(keys)]), 1, upReading(upLateTS(next), next))
			}
			next++
		}
		pub.flush()
	}
	stored := func(n int) func() bool {
		return func() bool { return srv.Count("EDGED") >= uint64(n*len(devices)) }
	}
	outbox := func() float64 {
		var sum float64
		for _, d := range devices {
			sum += upMetric(t, e.httpAddr, "edged_outbox_records", map[string]string{"queue": "up/" + d})
		}
		return sum
	}

	feed(200)
	harness.Eventually(t, 20*time.Second, "the first late records stored", stored(next))

	// outageThenCrash stops the server while records arrive (they wait in the
	// outbox), starts it again and kills edged while it drains the backlog. It
	// returns the duplicates the next incarnation reports. A kill that happens to
	// fall where nothing stored is still in the outbox makes none, so the test
	// tries up to three times.
	outageThenCrash := func() float64 {
		// Everything stored so far is acknowledged and gone from the outbox, so
		// the count below is the outage's records only.
		harness.Eventually(t, 20*time.Second, "the outbox empty", func() bool { return outbox() == 0 })
		srv.Stop()
		harness.Eventually(t, 10*time.Second, "edged saw NATS go", func() bool { return metric("edged_upstream_connected") == 0 })
		before := next
		feed(1000)
		harness.Eventually(t, 20*time.Second, "the late records of the outage held in the outbox", func() bool {
			return outbox() == float64((next-before)*len(devices))
		})
		srv.Restart()
		harness.Eventually(t, 30*time.Second, "edged draining the backlog", stored(before+100))
		e.kill()
		e.start()
		harness.Eventually(t, 60*time.Second, "the backlog stored after the crash", stored(next))
		return e.metric("edged_upstream_duplicates_total")
	}
	var dups float64
	for attempt := 0; attempt < 3 && dups == 0; attempt++ {
		dups = outageThenCrash()
		t.Logf("after the kill, JetStream reported %v records as duplicates", dups)
	}
	if dups == 0 {
		t.Error("no duplicates after killing edged mid-drain three times: records stored but not yet deleted from the outbox must have been sent again")
	}

	// Server restart while edged sends.
	before := next
	feed(1000)
	harness.Eventually(t, 30*time.Second, "edged sending the next records", stored(before+50))
	srv.Restart()
	harness.Eventually(t, 60*time.Second, "every record stored after the server restart", stored(next))

	counts := map[string]int{}
	for _, m := range srv.Messages("EDGED") {
		counts[m.ID]++
	}
	missing := 0
	for _, d := range devices {
		for seq := 1; seq <= next; seq++ {
			id := fmt.Sprintf("%s/cloud/%s-%d", s.prefix, d, seq)
			switch c := counts[id]; {
			case c == 0:
				missing++
			case c > 1:
				t.Errorf("record %s stored %d times", id, c)
			}
			delete(counts, id)
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d late records missing from the stream", missing, next*len(devices))
	}
	for id, c := range counts {
		t.Errorf("the stream holds %d messages with id %s, which edged never made", c, id)
	}
	t.Logf("%d late records per device, each stored once; %v duplicates dropped by JetStream after the kill", next, dups)
}
