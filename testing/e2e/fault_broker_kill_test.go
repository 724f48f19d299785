package e2e

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

// A broker killed with -9 keeps only what it saved. Once the broker confirmed a
// result, edged deletes it, so a result the broker holds for a consumer that is
// away survives only in the broker's file. With the settings docs/delivery.md gives
// (testing/broker's NoLossConfig: persistence, autosave_interval 1) the broker saves
// every second: the consumer here is away while edged publishes every result, and
// the broker is killed right after its first save that follows edged's last
// confirmed result. (Killed within that second, it loses what it confirmed in it;
// docs/delivery.md says so.)
func TestFaultBrokerKilledAfterItsAutosaveLosesNoResult(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := crashConfig(t, mq.URL(), faultPrefix("brokerkill"))
	coll := &crashCollector{late: map[int]bool{}}
	away := faultConsumer(t, s, coll) // subscribes, then leaves its session to the broker
	away.Close(time.Second)
	e := crashStart(t, bin, s.config)

	const n = 20_000
	events := crashEvents(41, n)
	var acked atomic.Int64
	if err := crashPublish(t, s, events, 0, n, &acked); err != nil {
		t.Fatal(err)
	}
	// The last windows fire after their streams go idle, so a result may be
	// confirmed while the test waits for the save: wait again until a save follows
	// the last confirmation.
	var published float64
	for saved := false; !saved; {
		harness.Eventually(t, 60*time.Second, "every reading committed and every result confirmed", func() bool {
			published = e.metric("edged_results_published_total")
			return e.metric("edged_records_in_total") == n && e.metric("edged_inflight_messages") == 0 &&
				published == e.metric("edged_window_firings_total")+e.metric("edged_window_late_updates_total")+e.metric("edged_late_total")
		})
		confirmed := time.Now()
		harness.Eventually(t, 10*time.Second, "the broker saving after the last confirmation", func() bool {
			fi, err := os.Stat(filepath.Join(mq.Dir(), "mosquitto.db"))
			return err == nil && fi.ModTime().After(confirmed)
		})
		saved = e.metric("edged_results_published_total") == published
	}
	mq.Kill()
	t.Logf("broker killed after confirming %.0f results to edged and saving them, none delivered yet", published)
	mq.Restart()
	faultConsumer(t, s, coll)

	v := crashAwait(t, coll, events, false)
	results, _, _ := coll.snapshot()
	t.Logf("after the broker's restart: %d windows expected, %d results, %d problems", v.windows, len(results), len(v.problems))
	crashReport(t, v)
}

// faultConsumer connects coll's consumer of s's results and late records with a
// persistent session; closing it leaves the session to the broker.
func faultConsumer(t testing.TB, s crashSetup, coll *crashCollector) *mqtt.Client {
	t.Helper()
	c, err := mqtt.Connect(context.Background(), mqtt.Options{
		URL: s.broker, ClientID: s.prefix + "-collector", CleanSession: false,
		Subscriptions: []mqtt.Subscription{{Filter: s.prefix + "/out/#", QoS: 1}, {Filter: s.prefix + "/late", QoS: 1}},
		Handler:       coll.handle(s.prefix + "/late"),
	})
	if err != nil {
		t.Fatalf("consumer: %v", err)
	}
	t.Cleanup(func() { c.Close(time.Second) })
	return c
}
