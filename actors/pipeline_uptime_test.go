package actors

import (
	"testing"

	"github.com/edged/edged/watermark"
)

// A run's uptime continues from the one the run before saved, whatever the
// processing time did in between: a restart that counted the downtime would move
// an idle stream's watermark over the backlog the broker replays.
func TestUptimeContinuesFromTheLastRunWithoutTheDowntime(t *testing.T) {
	first := &uptime{}
	if _, ok := first.at(5); ok {
		t.Fatal("the uptime is known before the clock started")
	}
	idle := watermark.GeneratorState{Idle: true, Watermark: 1_400, Base: 1_000, BaseAt: 100_000}
	if got, kept := first.saved(idle); got.Base != watermark.Min || kept {
		t.Fatalf("saved before the clock started: %+v, want no base", got)
	}
	first.start(100_000)
	saved, _ := first.saved(idle)
	if saved.BaseAt != 0 {
		t.Fatalf("the base taken at the first tick is at uptime %d, want 0", saved.BaseAt)
	}
	if _, ok := first.due(100_999, true, false); ok {
		t.Error("the uptime was due less than a second after the start")
	}
	if up, ok := first.due(100_200, true, true); !ok || up != 200 {
		t.Errorf("the last flush before a stop did not save the uptime: %d, %v", up, ok)
	}
	if _, ok := first.due(101_000, false, false); ok {
		t.Error("the uptime was due with no state extrapolating from it")
	}
	if _, ok := first.due(101_199, true, false); ok {
		t.Error("the uptime was due less than a second after it was saved")
	}
	up, ok := first.due(101_500, true, false)
	if !ok || up != 1_500 {
		t.Fatalf("due at 101500 = %d, %v; want 1500", up, ok)
	}
	// Down for an hour; the next run starts its clock where the first left it.
	second := &uptime{before: up}
	second.start(3_700_000)
	if at, _ := second.at(3_700_400); at != 1_900 {
		t.Errorf("400 ms into the second run the uptime is %d, want 1900", at)
	}
	if got := saved.Drifted(up).Watermark; got != 2_500 {
		t.Errorf("drifted to the uptime saved, the first run's state has watermark %d, want 2500", got)
	}
}
