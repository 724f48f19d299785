package e2e

import (
	"net/url"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

// The upstream outbox has the same weakness as the result outbox: a batch in flight
// when the uplink drops is resent after the reconnect and its first publish
// completes without a PUBACK. Here the uplink delivers nothing edged sends (the gate
// is held) from before the disconnect until after a crash: every late record must
// still reach the cloud.
func TestFaultUpstreamBatchInFlightAtADisconnectSurvivesACrash(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	devices, keys := []string{"gw-a", "gw-b"}, upKeys(4)
	local, cloud := broker.Start(t), broker.Start(t)
	cu, err := url.Parse(cloud.URL())
	if err != nil {
		t.Fatal(err)
	}
	g := broker.StartGate(t, cu.Host)
	s := upConfig(t, local.URL(), upPrefix("fault"), 1,
		upUplink{url: g.URL(), maxRecords: 20, maxRate: 5000, maxBytes: 64 << 20, whenFull: "drop_oldest"}, devices...)
	sub := upSubscribe(t, cloud.URL(), s.prefix+"-cloud", s.prefix+"/cloud/#")
	e := crashStart(t, bin, s.config)
	metric := func(name string) float64 { return upMetric(t, e.httpAddr, name, nil) }
	harness.Eventually(t, 10*time.Second, "edged connected to the cloud broker", func() bool {
		return metric("edged_upstream_connected") == 1
	})
	pub := upPublish(t, local.URL(), s.prefix+"-pub")
	fired := s.upOnTime(pub, 1, devices, keys)
	harness.Eventually(t, 10*time.Second, "the on-time windows fired", func() bool {
		return metric("edged_window_firings_total") >= float64(fired)
	})

	// feed sends the next too-late reading of every device, so that edged keeps
	// committing while the test waits.
	const max = 2000
	next := 0
	feed := func() {
		if next >= max {
			return
		}
		for _, d := range devices {
			pub.send(s.upTopic(d, keys[next%len(keys)]), 1, upReading(upLateTS(next), next))
		}
		next++
		pub.flush()
	}
	g.Hold()
	harness.Eventually(t, 30*time.Second, "a batch of every device sent into the void", func() bool {
		feed()
		p, _ := g.Lost()
		return p >= int64(len(devices))
	})
	g.Cut()
	inFlight, _ := g.Lost()
	harness.Eventually(t, 30*time.Second, "the batches in flight resent after the reconnect, and lost again", func() bool {
		feed()
		_, r := g.Lost()
		return r >= inFlight
	})
	commits := metric("edged_commits_total")
	harness.Eventually(t, 30*time.Second, "edged committing after the reconnect", func() bool {
		feed()
		return metric("edged_commits_total") >= commits+5
	})
	lost, resent := g.Lost()
	t.Logf("%d batches lost, %d of them resent after the reconnect; killing edged after %d too-late readings per device", lost, resent, next)
	e.kill()

	g.Open()
	e.start()
	want := map[string][]int{}
	for _, d := range devices {
		want[d] = upSeqs(next)
	}
	total := next * len(devices)
	// Bounded, not fatal: the check below names what is missing.
	for deadline := time.Now().Add(30 * time.Second); sub.distinct() < total && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // the poll interval of a wait bounded by deadline
	}
	t.Logf("%d of %d too-late records at the cloud", sub.distinct(), total)
	upCheckDelivery(t, sub.snapshot(), s.prefix+"/cloud", want)
}
