package watermark

import (
	"math"
	"strings"
	"testing"
)

// The worked example from the seed articles, in Flink's exact arithmetic:
// bound 5 s, so the watermark is maxTs - 5000 - 1 ms.
func TestBoundedWatermarkFollowsTheWorkedExample(t *testing.T) {
	g := NewGenerator(Config{Strategy: Bounded, MaxOutOfOrderness: 5_000})
	events := []int64{100, 102, 98, 105, 103, 110, 108} // seconds
	want := []int64{94_999, 96_999, 96_999, 99_999, 99_999, 104_999, 104_999}
	const windowMaxTimestamp = 100_000 - 1 // window [90 s, 100 s)
	for i, sec := range events {
		now := int64(i) * 200
		if v := g.Observe(sec*1_000, now); v != Accepted {
			t.Fatalf("record %d (%d s): verdict %v, want accepted", i+1, sec, v)
		}
		s, _ := g.Tick(now)
		if s.Watermark != want[i] || s.Idle {
			t.Fatalf("record %d (%d s): status %v, want %d active", i+1, sec, s, want[i])
		}
		// The window [90 s, 100 s) fires at the first watermark >= 99999:
		// after the 4th record (105 s), not before.
		if fires := s.Watermark >= windowMaxTimestamp; fires != (i >= 3) {
			t.Fatalf("record %d (%d s): window [90 s, 100 s) fires = %v with watermark %d", i+1, sec, fires, s.Watermark)
		}
	}
}

func TestGeneratorRules(t *testing.T) {
	bounded := Config{Strategy: Bounded, MaxOutOfOrderness: 1_000}
	hold := Config{Strategy: Bounded, MaxOutOfOrderness: 1_000, IdleTimeout: 5_000, IdleMode: Hold}
	advance := Config{Strategy: Bounded, MaxOutOfOrderness: 1_000, IdleTimeout: 5_000, IdleMode: Advance}
	skew := Config{Strategy: Bounded, MaxOutOfOrderness: 1_000, MaxFutureSkew: 1_000}
	// wall is a processing time that is a plausible wall clock (2024-12-02).
	const wall int64 = 1_733_140_000_000
	skewIdle := Config{Strategy: Bounded, MaxOutOfOrderness: 1_000, MaxFutureSkew: 1_000, IdleTimeout: 3_000}
	punct := Config{Strategy: Punctuated, IdleTimeout: 5_000}

	cases := []struct {
		name  string
		cfg   Config
		steps []step
	}{
		{"the watermark is Min before the first record and the first tick reports no change", bounded, []step{
			tick(0, Min, active, false),
			tick(100_000, Min, active, false),
		}},
		{"a tick reports a change only when the watermark or idleness differs from the last tick", bounded, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			tick(200, 8_999, active, false),
			observe(9_000, 300, Accepted),
			tick(400, 8_999, active, false),
			observe(12_000, 500, Accepted),
			tick(600, 10_999, active, true),
		}},
		{"an older record never moves the watermark back", bounded, []step{
			observe(10_000, 0, Accepted),
			observe(1_000, 1, Accepted),
			observe(math.MinInt64+1, 2, Accepted),
			tick(3, 8_999, active, true),
		}},
		{"monotonous is max minus one and ignores the configured bound", Config{Strategy: Monotonous, MaxOutOfOrderness: 5_000}, []step{
			observe(1_000, 0, Accepted),
			tick(0, 999, active, true),
			observe(500, 1, Accepted),
			tick(1, 999, active, false),
			observe(2_000, 2, Accepted),
			tick(2, 1_999, active, true),
		}},
		{"a zero bound makes bounded the same as monotonous", Config{Strategy: Bounded}, []step{
			observe(1_000, 0, Accepted),
			tick(0, 999, active, true),
		}},
		{"punctuated records do not move the watermark; marks do, forward only", punct, []step{
			observe(1_000, 0, Accepted),
			tick(0, Min, active, false),
			mark(800, 100),
			tick(100, 800, active, true),
			mark(700, 200),
			tick(200, 800, active, false),
			observe(5_000, 300, Accepted),
			tick(300, 800, active, false),
			mark(4_000, 400),
			tick(400, 4_000, active, true),
		}},
		{"a mark on a bounded stream moves the watermark forward only", bounded, []step{
			observe(10_000, 0, Accepted),
			mark(20_000, 1),
			tick(1, 20_000, active, true),
			mark(15_000, 2),
			observe(25_000, 3, Accepted),
			tick(3, 23_999, active, true),
		}},
		{"with no idle timeout a stream is never idle", bounded, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			tick(math.MaxInt64, 8_999, active, false),
		}},
		// Flink's WatermarksWithIdleness: a check that saw a record resets the
		// countdown, the first check that saw none starts it, and a check
		// strictly more than idle_timeout after that declares idleness.
		{"a stream goes idle at the first check more than idle_timeout after the first quiet check", hold, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),      // saw the record
			tick(1_000, 8_999, active, false), // the countdown starts here
			tick(6_000, 8_999, active, false), // exactly the timeout: not yet
			tick(6_001, 8_999, idle, true),
		}},
		{"a record between checks restarts the countdown at the next quiet check", hold, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			tick(1_000, 8_999, active, false),
			observe(9_000, 5_000, Accepted),
			tick(5_500, 8_999, active, false),
			tick(6_001, 8_999, active, false), // the countdown restarted at 6001
			tick(11_001, 8_999, active, false),
			tick(11_002, 8_999, idle, true),
		}},
		{"a stream that never had a record goes idle too", hold, []step{
			tick(0, Min, active, false),
			tick(5_000, Min, active, false),
			tick(5_001, Min, idle, true),
			observe(10_000, 6_000, Reactivated),
			tick(6_000, 8_999, active, true),
		}},
		{"hold keeps an idle stream's watermark until the next record reactivates it", hold, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			tick(1_000, 8_999, active, false),
			tick(6_001, 8_999, idle, true),
			tick(60_000, 8_999, idle, false),
			observe(11_000, 60_500, Reactivated),
			tick(60_500, 9_999, active, true),
			tick(61_000, 9_999, active, false),
			tick(66_000, 9_999, active, false),
			tick(66_001, 9_999, idle, true),
		}},
		{"advance extrapolates an idle stream by the processing time since its last record", advance, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			tick(1_000, 8_999, active, false),
			tick(6_001, 15_000, idle, true), // 10000 + 6001 - 1000 - 1
			tick(7_000, 15_999, idle, true),
			tick(7_000, 15_999, idle, false),
		}},
		{"a record on an advanced idle stream reactivates it without moving the watermark back", advance, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			tick(1_000, 8_999, active, false),
			tick(7_000, 15_999, idle, true),
			observe(12_000, 8_000, Reactivated), // base becomes 10999; the emitted 15999 stays
			tick(8_000, 15_999, active, true),
			tick(9_000, 15_999, active, false),
			tick(14_000, 15_999, active, false),
			tick(14_001, 17_000, idle, true), // 12000 + 6001 - 1001
		}},
		{"a record only reactivates a stream a tick reported idle", advance, []step{
			observe(10_000, 0, Accepted),
			observe(10_500, 9_000, Accepted),
			tick(9_000, 9_499, active, true),
		}},
		{"advance on a monotonous stream extrapolates max plus elapsed minus one", Config{Strategy: Monotonous, IdleTimeout: 5_000}, []step{
			observe(10_000, 0, Accepted),
			tick(0, 9_999, active, true),
			tick(1_000, 9_999, active, false),
			tick(6_001, 16_000, idle, true),
		}},
		{"advance on a punctuated stream extrapolates from the last mark and when it came", punct, []step{
			observe(1_000, 0, Accepted),
			mark(900, 100),
			tick(100, 900, active, true),
			tick(200, 900, active, false),
			tick(5_200, 900, active, false),
			tick(5_201, 6_001, idle, true), // 900 + (5201 - 100)
			mark(5_000, 5_300),             // lower than what was extrapolated: kept, but it rebases
			tick(6_400, 6_100, idle, true),
		}},
		{"a mark neither restarts nor stops the idleness countdown", punct, []step{
			observe(1_000, 0, Accepted),
			tick(0, Min, active, false),
			tick(1_000, Min, active, false),
			mark(900, 3_000),
			tick(6_001, 3_901, idle, true), // 900 + (6001 - 3000)
		}},
		{"advance on a punctuated stream with no mark yet stays at Min", punct, []step{
			observe(1_000, 0, Accepted),
			tick(0, Min, active, false),
			tick(1_000, Min, active, false),
			tick(10_000, Min, idle, true),
		}},
		{"a processing clock that jumps back neither reactivates nor rewinds", advance, []step{
			observe(10_000, 100_000, Accepted),
			tick(100_000, 8_999, active, true),
			tick(101_000, 8_999, active, false),
			tick(106_001, 15_000, idle, true),
			tick(50_000, 15_000, idle, false),
		}},
		{"the skew guard rejects a record more than max_future_skew ahead of the stream's clock", skew, []step{
			observe(10_000, 0, Accepted),
			observe(11_001, 0, Future),
			observe(11_000, 0, Accepted),
			tick(0, 9_999, active, true),
			observe(17_001, 5_000, Future), // 11000 + 5000 + 1000 = 17000
			tick(5_000, 9_999, active, false),
			observe(17_000, 5_000, Accepted),
			tick(5_000, 15_999, active, true),
		}},
		{"the first record is judged against a wall-clock processing time", skew, []step{
			observe(wall+1_001, wall, Future),
			observe(wall+1_000, wall, Accepted),
			tick(wall, wall-1, active, true),
		}},
		{"a year-9999 first record is rejected and the next reading starts the stream", skew, []step{
			observe(253_402_300_799_000, wall, Future),
			tick(wall, Min, active, false),
			observe(wall-5_000, wall+10, Accepted),
			tick(wall+10, wall-6_001, active, true),
			observe(wall-3_999, wall+10, Future), // now its own clock judges: wall-5000 + 0 elapsed + 1000 skew
		}},
		{"before processing time is a wall clock the first record is not judged", skew, []step{
			observe(math.MaxInt64-10, 0, Accepted),
			tick(0, math.MaxInt64-1_011, active, true),
			observe(math.MaxInt64, 1, Accepted),
			tick(1, math.MaxInt64-1_001, active, true),
		}},
		{"without a skew guard a far-future record is accepted", bounded, []step{
			observe(10_000, 0, Accepted),
			observe(86_400_000, 0, Accepted),
			tick(0, 86_398_999, active, true),
		}},
		{"a rejected record does not count as an arrival for idleness", skewIdle, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			tick(500, 8_999, active, false),
			observe(99_999, 2_500, Future),
			tick(3_501, 12_500, idle, true),
		}},
		{"a rejected record does not reactivate an idle stream", skewIdle, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			tick(500, 8_999, active, false),
			tick(3_501, 12_500, idle, true),
			observe(99_999, 3_600, Future),
			tick(3_600, 12_599, idle, true),
			observe(13_000, 3_700, Reactivated),
			tick(3_700, 12_599, active, true),
		}},
		{"timestamps near the int64 limits saturate instead of wrapping", Config{Strategy: Bounded, MaxOutOfOrderness: 5_000, IdleTimeout: 1}, []step{
			observe(math.MinInt64+10, 0, Accepted),
			tick(0, Min, active, false),
			observe(math.MaxInt64-1_000, 0, Accepted),
			tick(0, math.MaxInt64-6_001, active, true),
			tick(1, math.MaxInt64-6_001, active, false),
			tick(10_000, math.MaxInt64, idle, true),
		}},
		{"a restart re-emits the restored status", bounded, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			restart(100),
			tick(100, 8_999, active, true),
			tick(200, 8_999, active, false),
		}},
		{"a restart of a stream that saw nothing reports no change", bounded, []step{
			restart(100),
			tick(100, Min, active, false),
		}},
		{"after a restart the idleness countdown starts at the first check, not at the last record", advance, []step{
			observe(10_000, 0, Accepted),
			restart(100_000),
			tick(100_000, 8_999, active, true),
			tick(105_000, 8_999, active, false),
			tick(105_001, 14_000, idle, true), // from the restored 8999 at 100000
		}},
		{"an idle advancing stream resumes from its watermark after a restart, without the downtime", advance, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			tick(1_000, 8_999, active, false),
			tick(6_001, 15_000, idle, true),
			restart(100_000),
			tick(100_000, 15_000, idle, true),
			tick(101_000, 16_000, idle, true),
			observe(20_000, 101_500, Reactivated),
			tick(101_500, 18_999, active, true),
		}},
		{"an idle holding stream stays idle and held after a restart", hold, []step{
			observe(10_000, 0, Accepted),
			tick(0, 8_999, active, true),
			tick(1_000, 8_999, active, false),
			tick(6_001, 8_999, idle, true),
			restart(100_000),
			tick(200_000, 8_999, idle, true),
			observe(10_500, 200_001, Reactivated),
			tick(200_001, 9_499, active, true),
		}},
		{"the skew guard counts the downtime, so a backlog with a gap is not future", skew, []step{
			observe(10_000, 0, Accepted),
			restart(3_600_000),
			observe(10_000+3_600_000, 3_600_000, Accepted),
			observe(10_000+3_600_000+1_001, 3_600_000, Future),
		}},
		{"a punctuated stream restarts from its last watermark", punct, []step{
			observe(1_000, 0, Accepted),
			mark(900, 0),
			restart(50_000),
			tick(50_000, 900, active, true),
			tick(55_001, 5_901, idle, true),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runSteps(t, c.cfg, c.steps) })
	}
}

func TestGeneratorStateReflectsWhatWasAccepted(t *testing.T) {
	cfg := Config{Strategy: Bounded, MaxOutOfOrderness: 1_000, IdleTimeout: 5_000, MaxFutureSkew: 1_000}
	cases := []struct {
		name  string
		steps []step
		want  GeneratorState
	}{
		{"a new generator has seen nothing", nil,
			GeneratorState{Max: Min, Watermark: Min, Base: Min}},
		{"accepted records set max, arrival and watermark", []step{
			observe(10_000, 100, Accepted), observe(9_000, 200, Accepted),
		}, GeneratorState{Max: 10_000, LastArrival: 200, Watermark: 8_999, Seen: true, Base: Min}},
		{"a future record changes nothing", []step{
			observe(10_000, 100, Accepted), observe(50_000, 200, Future),
		}, GeneratorState{Max: 10_000, LastArrival: 100, Watermark: 8_999, Seen: true, Base: Min}},
		{"idleness, the extrapolated watermark and where it is extrapolated from are kept", []step{
			observe(10_000, 100, Accepted), tick(100, 8_999, active, true), tick(200, 8_999, active, false), tick(5_201, 14_100, idle, true),
		}, GeneratorState{Max: 10_000, LastArrival: 100, Watermark: 14_100, Seen: true, Idle: true, Base: 8_999, BaseAt: 100}},
		{"an idle stream that holds has nothing to extrapolate from", []step{
			observe(10_000, 100, Accepted), tick(100, 8_999, active, true), tick(200, 8_999, active, false), tick(5_201, 8_999, idle, true),
		}, GeneratorState{Max: 10_000, LastArrival: 100, Watermark: 8_999, Seen: true, Idle: true, Base: Min}},
		{"a restart keeps the last arrival, which the skew guard measures from", []step{
			observe(10_000, 100, Accepted), restart(9_000),
		}, GeneratorState{Max: 10_000, LastArrival: 100, Watermark: 8_999, Seen: true, Base: Min}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := cfg
			if strings.Contains(c.name, "holds") {
				cfg.IdleMode = Hold
			}
			if got := runSteps(t, cfg, c.steps).State(); got != c.want {
				t.Fatalf("State() = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestNegativeDurationsInConfigAreTreatedAsZero(t *testing.T) {
	runSteps(t, Config{MaxOutOfOrderness: -5, IdleTimeout: -1, MaxFutureSkew: -1}, []step{
		observe(1_000, 0, Accepted),
		observe(1_000_000, 0, Accepted),
		tick(1_000_000, 999_999, active, true),
	})
}

func TestObserveTickAndValveUpdateAllocateNothing(t *testing.T) {
	g := NewGenerator(Config{Strategy: Bounded, MaxOutOfOrderness: 5_000, IdleTimeout: 1_000, MaxFutureSkew: 60_000})
	v := NewValve()
	v.Update("a", Status{})
	v.Update("b", Status{})
	var now int64
	allocs := testing.AllocsPerRun(1_000, func() {
		now += 300
		g.Observe(now, now)
		s, _ := g.Tick(now + 2_000)
		v.Update("a", s)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per record, want 0", allocs)
	}
}
