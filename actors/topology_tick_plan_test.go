package actors

import (
	"testing"
)

// A topology with nothing due sleeps maxSleep, so that a gateway at rest wakes for
// its ticker every ten seconds rather than every second; a sink with a publish to
// retry brings the ticks back to every tickEvery, and asking for a tick cuts a long
// sleep short.
func TestATopologyAtRestSleepsUntilSomethingIsDue(t *testing.T) {
	e := &env{ticks: tickPlanIf(true)}
	topo := &topology{env: e, router: &router{}}
	const now = int64(1_733_140_000_000)
	if next := topo.plan(now); next != now+10_000 {
		t.Fatalf("at rest the next tick is %d ms away, want 10 s", next-now)
	}
	if !e.ticks.long.Load() {
		t.Fatal("a sleep of maxSleep is not marked long: an earlier need would not wake the ticker")
	}
	e.ticks.need(now + 1)
	select {
	case <-e.ticks.wake:
	default:
		t.Fatal("a need earlier than the sleep's end did not wake the ticker")
	}
	e.sinkRetrying.Store(true)
	if next, want := topo.plan(now), now+tickEvery.Milliseconds(); next != want || e.ticks.long.Load() {
		t.Fatalf("a retrying sink is ticked %d ms from now (long %v), want tickEvery (%s)", next-now, e.ticks.long.Load(), tickEvery)
	}
}
