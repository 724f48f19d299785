package tune

import (
	"slices"
	"testing"

	"github.com/edged/edged/watermark"
)

type reading struct{ ts, at int64 }

func observed(cfg watermark.Config, rs ...reading) *Stream {
	s := NewStream(cfg)
	for _, r := range rs {
		s.Observe(r.ts, r.at)
	}
	return s
}

func TestDelayIsBehindTheMaxSeenBefore(t *testing.T) {
	s := observed(watermark.Config{},
		reading{100, 0}, reading{90, 10}, reading{120, 20}, reading{110, 35}, reading{105, 40}, reading{130, 50}, reading{130, 50})
	if want := []int64{0, 10, 0, 10, 15, 0, 0}; !slices.Equal(s.Delays(), want) {
		t.Errorf("delays %v, want %v", s.Delays(), want)
	}
	if want := []int64{10, 10, 15, 5, 10, 0}; !slices.Equal(s.Gaps(), want) {
		t.Errorf("gaps %v, want %v", s.Gaps(), want)
	}
	if s.Readings() != 7 || s.Future() != 0 {
		t.Errorf("readings %d future %d", s.Readings(), s.Future())
	}
}

func TestReadingsTheSkewGuardRejectsMoveNothing(t *testing.T) {
	cfg := watermark.Config{MaxFutureSkew: 1000}
	s := observed(cfg, reading{10_000, 0}, reading{50_000, 10}, reading{9_000, 20}, reading{10_500, 30})
	if s.Future() != 1 || s.Readings() != 3 {
		t.Fatalf("future %d readings %d, want 1 and 3", s.Future(), s.Readings())
	}
	// 9,000 is measured against 10,000, not against the rejected 50,000.
	if want := []int64{0, 1000, 0}; !slices.Equal(s.Delays(), want) {
		t.Errorf("delays %v, want %v", s.Delays(), want)
	}
	if want := []int64{20, 10}; !slices.Equal(s.Gaps(), want) {
		t.Errorf("gaps %v, want %v (from accepted readings only)", s.Gaps(), want)
	}
}

func TestExtraLatencyIsWhenTheMaxReachesTheBoundMore(t *testing.T) {
	s := observed(watermark.Config{}, reading{100, 0}, reading{50, 40}, reading{200, 100}, reading{300, 200}, reading{310, 260})
	cases := []struct {
		b    int64
		want []int64
	}{
		{0, []int64{0, 0, 0, 0}},
		{10, []int64{100, 100, 60}}, // 310 never reaches 320
		{100, []int64{100, 100}},    // 100 -> 200 at 100; 200 -> 300 at 200
		{150, []int64{200}},         // 100 -> 250: 300 at 200
		{1000, nil},
	}
	for _, c := range cases {
		if got := s.ExtraLatency(c.b); !slices.Equal(got, c.want) {
			t.Errorf("ExtraLatency(%d) = %v, want %v", c.b, got, c.want)
		}
	}
}
