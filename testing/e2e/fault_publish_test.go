package e2e

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

// Results in flight when the connection to the broker drops are resent by paho
// after the reconnect, which completes their first publish without a PUBACK. An
// outbox entry deleted then is lost if edged crashes before the resent copy is
// confirmed. Here the network delivers nothing edged sends (the gate is held) from
// before the disconnect until after the crash: every result must still arrive.
func TestFaultResultsInFlightAtADisconnectSurviveACrash(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	g := broker.StartGate(t, fmt.Sprintf("127.0.0.1:%d", mq.Port()))
	s := crashConfig(t, g.URL(), faultPrefix("inflight"))
	s.broker = mq.URL() // the sensors and the collector reach the broker directly
	coll := crashCollect(t, s)
	e := crashStart(t, bin, s.config)

	const n, chunk = 30_000, 100
	events := crashEvents(31, n)
	var acked atomic.Int64
	next := 0
	// feed publishes the next chunk of readings, so that windows keep firing and
	// edged keeps committing while the test waits.
	feed := func() {
		if next >= n {
			return
		}
		if err := crashPublish(t, s, events, next, next+chunk, &acked); err != nil {
			t.Fatal(err)
		}
		next += chunk
	}
	harness.Eventually(t, 30*time.Second, "results flowing", func() bool {
		feed()
		r, _, _ := coll.snapshot()
		return len(r) > 100
	})

	g.Hold()
	harness.Eventually(t, 30*time.Second, "200 results published into the void", func() bool {
		feed()
		p, _ := g.Lost()
		return p >= 200
	})
	g.Cut()
	inFlight, _ := g.Lost()
	harness.Eventually(t, 30*time.Second, "the results in flight resent after the reconnect, and lost again", func() bool {
		feed()
		_, r := g.Lost()
		return r >= inFlight
	})
	commits := e.metric("edged_commits_total")
	harness.Eventually(t, 30*time.Second, "edged committing after the reconnect", func() bool {
		feed()
		return e.metric("edged_commits_total") >= commits+5
	})
	lost, resent := g.Lost()
	t.Logf("%d publishes lost, %d of them resent after the reconnect; killing edged after %d readings", lost, resent, next)
	e.kill()

	g.Open()
	e.start()
	if err := crashPublish(t, s, events, next, n, &acked); err != nil {
		t.Fatal(err)
	}
	v := crashAwait(t, coll, events, false)
	results, _, _ := coll.snapshot()
	t.Logf("after the crash: %d windows expected, %d results, %d problems", v.windows, len(results), len(v.problems))
	crashReport(t, v)
}
