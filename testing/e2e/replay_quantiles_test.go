package e2e

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/sim"
	"github.com/edged/edged/testing/harness"
)

// TestReplayedQuantilesStayInsideTheirWindowsMinAndMax replays the demo config
// on simulated feeds (the sensors read temperatures in tenths, so a window's
// values often share one 1 % sketch bin) and the randomized streams of
// TestReplayEqualsTheOracleOnRandomizedStreams, in memory and through a data
// dir: every p95 of every result, late updates included, lies inside that
// result's min and max.
func TestReplayedQuantilesStayInsideTheirWindowsMinAndMax(t *testing.T) {
	t.Parallel()
	demo, err := configs.Load("../../configs/demo/edged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("demo feed seed %d", seed), func(t *testing.T) {
			feed, err := sim.NewFeed(sim.Config{
				Sensors: 20, Rate: 5, Duration: 2 * time.Minute, Disorder: 200 * time.Millisecond,
				LateFraction: 0.02, LateBy: 3 * time.Second, Seed: seed, Start: 1_733_140_000_000,
			})
			if err != nil {
				t.Fatal(err)
			}
			var input, out bytes.Buffer
			if _, err := sim.WriteReplay(&input, feed); err != nil {
				t.Fatal(err)
			}
			if _, err := actors.Replay(actors.ReplayOptions{Config: demo, Input: &input, Output: &out}); err != nil {
				t.Fatalf("replay: %v", err)
			}
			results, _, _ := replayParse(t, out.Bytes())
			checkQuantilesInside(t, results, "p95_temp", "min_temp", "max_temp")
		})
	}
	for _, c := range replayCases {
		t.Run(c.name, func(t *testing.T) {
			t.Logf("seed %d", c.seed)
			_, input := replayInput(c)
			results, _, _ := replayParse(t, replayRun(t, replayConfig(t, c), input, false, t.TempDir()))
			checkQuantilesInside(t, results, "p95_temp", "min_temp", "max_temp")
		})
	}
}

func checkQuantilesInside(t *testing.T, results []harness.Result, q, lo, hi string) {
	t.Helper()
	checked := 0
	for _, r := range results {
		v, l, h := r.Values[q], r.Values[lo], r.Values[hi]
		if v == nil || l == nil || h == nil {
			continue
		}
		checked++
		if *v < *l || *v > *h {
			t.Errorf("%s [%d, %d) revision %d: %s = %v lies outside [%s, %s] = [%v, %v]",
				r.Key, r.Start, r.End, r.Revision, q, *v, lo, hi, *l, *h)
		}
	}
	if checked == 0 {
		t.Fatalf("no result has %s, %s and %s", q, lo, hi)
	}
	t.Logf("%d of %d results checked", checked, len(results))
}
