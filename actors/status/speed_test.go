package status

import (
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestAWatermarksSpeedIsItsMovingAverageOverTheSamples(t *testing.T) {
	stats := NewStats()
	x := stats.Topic("d", "s", "s/1")
	s := NewSampler(prometheus.NewRegistry(), stats, 0, nil, nil)
	t0 := time.UnixMilli(1_700_000_000_000)
	speed := func(at time.Time) (float64, bool) {
		row, ok := s.StreamNow("d", "s/1", at.UnixMilli())
		if !ok {
			t.Fatal("no s/1")
		}
		return row.Speed, row.SpeedKnown
	}
	wm := 1_699_999_000.0 // s
	for i := range 5 {
		// The sensor catches up: its watermark moves 4 s per 2 s sample.
		x.Watermark.Set(wm + float64(4*i))
		s.Sample(t0.Add(time.Duration(i) * Every))
		if v, known := speed(t0); i == 0 && known {
			t.Errorf("a speed (%v) from one sample", v)
		}
	}
	if v, known := speed(t0); !known || v != 2 {
		t.Errorf("speed %v (%v), want 2", v, known)
	}
	// It stops: each sample weighs 1-exp(-2/30) in the average.
	s.Sample(t0.Add(5 * Every))
	if v, _ := speed(t0); math.Abs(v-2*math.Exp(-2.0/30)) > 1e-3 {
		t.Errorf("speed %v once it stopped, want %v", v, 2*math.Exp(-2.0/30))
	}
	if _, ok := s.StreamNow("d", "s/2", t0.UnixMilli()); ok {
		t.Error("a topic no source had")
	}
}
