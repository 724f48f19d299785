package actors

import (
	"testing"
	"time"
)

// TestTheProcsGovernorGoesToOnePAfterQuietLooksAndBackAtOnce drives the governor
// through rates below, between and above its thresholds.
func TestTheProcsGovernorGoesToOnePAfterQuietLooksAndBackAtOnce(t *testing.T) {
	var g procsGovernor
	steps := []struct {
		rate         uint64 // readings a second over procsEvery
		one, changed bool
	}{
		{rate: 250},                             // quiet once: not yet
		{rate: 3_000},                           // between the thresholds: the count starts over
		{rate: 250},                             // quiet once again
		{rate: 0, one: true, changed: true},     // quiet twice: one P
		{rate: 4_000, one: true},                // below procsHigh: stays on one P
		{rate: 20_000, changed: true},           // a burst: back to the default at once
		{rate: 1_000},                           // quiet once
		{rate: 1_999, one: true, changed: true}, // quiet twice
	}
	for i, s := range steps {
		one, changed := g.look(s.rate*uint64(procsEvery/time.Second), procsEvery)
		if one != s.one || changed != s.changed {
			t.Fatalf("step %d (%d readings/s): one %v changed %v, want %v %v", i, s.rate, one, changed, s.one, s.changed)
		}
	}
	if one, changed := g.look(1_000_000, 0); !one || changed {
		t.Errorf("a look over no time changed the governor: one %v changed %v", one, changed)
	}
}
