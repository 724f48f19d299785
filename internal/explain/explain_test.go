package explain

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

const base = int64(1733140800000) // 2024-12-02T12:00:00Z

// fleet is a key fed by two streams, a ahead and b behind, with a fired window
// [base, base+5s) and a pending one [base+5s, base+10s); tumbling 5s, bound 500 ms,
// idle_timeout 30 s, allowed lateness 2 s. now is 0 for a stopped data dir.
func fleet(now int64) *Input {
	lateness := int64(2000)
	cfg := watermark.Config{Strategy: watermark.Bounded, MaxOutOfOrderness: 500, IdleTimeout: 30_000}
	return &Input{
		Device: "d", Window: "w5", Key: "A",
		Def:      Def{Type: "tumbling", Size: 5000, Aggregates: []string{"count"}},
		Lateness: &lateness, Stream: &cfg, Now: now,
		State: &KeyState{
			Watermark: base + 5499,
			Valve: []watermark.ValveInput{
				{Input: "a", Watermark: base + 9499, Aligned: true},
				{Input: "b", Watermark: base + 5499, Aligned: true},
			},
			Windows: []OpenWindow{
				{Window: windows.Window{Start: base, End: base + 5000}, Results: 1, Values: []windows.NamedValue{{Name: "count", Value: 10}}},
				{Window: windows.Window{Start: base + 5000, End: base + 10_000}, Values: []windows.NamedValue{{Name: "count", Value: 7}}},
			},
		},
		Streams: map[string]StreamState{
			"a": {Watermark: base + 9499, Seen: true, Max: base + 10_000, LastArrival: base + 10_000},
			"b": {Watermark: base + 5499, Seen: true, Max: base + 6000, LastArrival: base + 6000},
		},
	}
}

func TestAKeyIsHeldBackByItsLowestActiveStreamAndItsPendingWindowWaitsForIt(t *testing.T) {
	e := Build(fleet(0))
	if e.State != Saved || e.Combined != "lowest_active" || e.HeldBackBy != "b" || e.Watermark != Time(base+5499) || e.ActiveStreams != 2 {
		t.Fatalf("valve: state %s combined %s held back by %q watermark %d active %d", e.State, e.Combined, e.HeldBackBy, e.Watermark, e.ActiveStreams)
	}
	if !e.Streams[1].HoldsBack || e.Streams[0].HoldsBack {
		t.Errorf("holds_back: %+v", e.Streams)
	}
	if len(e.Windows) != 2 {
		t.Fatalf("windows: %+v", e.Windows)
	}
	fired, pending := e.Windows[0], e.Windows[1]
	if fired.State != Fired || fired.Results != 1 || *fired.PurgedAt != base+4999+2000 || *fired.Values["count"] != 10 {
		t.Errorf("fired window: %+v", fired)
	}
	w := pending.WaitsFor
	if pending.State != Pending || *pending.AheadMS != 4500 || w == nil {
		t.Fatalf("pending window: %+v", pending)
	}
	if strings.Join(w.Streams, ",") != "b,a" || *w.ReadingAtOrPast != base+10_500 || *w.MaxOutOfOrdernessMS != 500 || *w.IdleTimeoutMS != 30_000 || w.IdleMode != "advance" {
		t.Errorf("waits for: %+v", w)
	}
	if w.AtCurrentRate != nil || w.IfSilent != nil {
		t.Errorf("a stopped data dir has no estimates: %+v", w)
	}
	if !strings.Contains(pending.Why, "it waits for b and a: a reading from each with event time at or past 2024-12-02T12:00:10.500Z") {
		t.Errorf("why: %s", pending.Why)
	}
}

func TestStatesOfWindows(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(in *Input)
		want  string
	}{
		{"a window past the combined watermark that has not fired is due", func(in *Input) {
			in.Streams["a"] = StreamState{Watermark: base + 12_000}
			in.Streams["b"] = StreamState{Watermark: base + 10_000}
		}, Due},
		{"a window with early results short of its end is pending", func(in *Input) {
			in.State.Windows[1].Results = 2
		}, Pending},
		{"a window the watermark of the key passed with results is fired", func(in *Input) {
			in.State.Windows[1].Results = 1
			in.State.Watermark = base + 10_000
		}, Fired},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fleet(0)
			c.setup(in)
			if got := Build(in).Windows[1]; got.State != c.want {
				t.Errorf("state %s, want %s: %s", got.State, c.want, got.Why)
			}
		})
	}
}

func TestWindowsAskedForByEventTimeThatTheKeyDoesNotHold(t *testing.T) {
	for _, c := range []struct {
		at   int64
		want string
	}{
		{base - 60_000, "a reading for it now is too late"},
		{base + 20_000, "the key has no reading in it yet"},
	} {
		in := fleet(0)
		in.At = &c.at
		e := Build(in)
		if len(e.Windows) != 1 || e.Windows[0].State != NotOpen || !strings.Contains(e.Windows[0].Why, c.want) {
			t.Errorf("at %d: %+v", c.at, e.Windows)
		}
	}
}

func TestAKeyWithNoStateSaysSo(t *testing.T) {
	in := fleet(0)
	in.State = nil
	e := Build(in)
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if e.State != None || !strings.Contains(e.NoState, "no open window") || !strings.Contains(string(b), `"watermark":null`) {
		t.Errorf("%s", b)
	}
}

func TestEstimatesOnARunningDaemon(t *testing.T) {
	now := base + 12_000 // 2 s after a's last reading, 6 s after b's
	for _, c := range []struct {
		name         string
		setup        func(in *Input)
		rate, silent *int64 // in ms; nil: it does not fire that way
		because      string
	}{
		{"a stream not measured yet moves with the clock", func(in *Input) {}, ptr[int64](4500), ptr[int64](28_000), "taken to move with the clock"},
		{"a stream at half the clock's speed takes twice as long", func(in *Input) {
			in.Streams["b"] = StreamState{Watermark: base + 5499, Seen: true, Max: base + 6000, LastArrival: base + 6000, Speed: 0.5, SpeedKnown: true}
		}, ptr[int64](9000), ptr[int64](28_000), "moved 0.50× as fast as the clock"},
		{"a stream whose watermark stopped never fires it at that rate", func(in *Input) {
			in.Streams["b"] = StreamState{Watermark: base + 5499, Seen: true, Max: base + 6000, LastArrival: base + 6000, SpeedKnown: true}
		}, nil, ptr[int64](28_000), "has not moved lately"},
		{"with no idle timeout silence fires nothing", func(in *Input) {
			in.Stream.IdleTimeout = 0
		}, ptr[int64](4500), nil, "never go idle"},
		{"silent in hold mode with every stream behind, it waits for a reading", func(in *Input) {
			in.Stream.IdleMode = watermark.Hold
		}, ptr[int64](4500), nil, "it waits for a reading"},
		{"a lone stream falling silent in advance mode fires once its moving watermark gets there", func(in *Input) {
			in.State.Valve = in.State.Valve[1:]
			delete(in.Streams, "a")
			// Idle at 12:00:36 (30 s after its last reading, 24 s from now), its
			// watermark then 12:00:35.499, past the window's end.
		}, ptr[int64](4500), ptr[int64](24_000), "moves on with the time elapsed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := fleet(now)
			c.setup(in)
			w := Build(in).Windows[1].WaitsFor
			if w == nil || w.AtCurrentRate == nil || w.IfSilent == nil {
				t.Fatalf("no estimates: %+v", w)
			}
			check := func(what string, got *ETA, want *int64) {
				switch {
				case want == nil && got.At != nil:
					t.Errorf("%s: fires in %d ms, want never (%s)", what, *got.InMS, got.Because)
				case want != nil && (got.At == nil || *got.InMS != *want || *got.At != now+*want):
					t.Errorf("%s: %+v, want in %d ms", what, got, *want)
				}
			}
			check("at the current rate", w.AtCurrentRate, c.rate)
			check("if silent", w.IfSilent, c.silent)
			if !strings.Contains(w.AtCurrentRate.Because+w.IfSilent.Because, c.because) {
				t.Errorf("because %q / %q, want %q in one", w.AtCurrentRate.Because, w.IfSilent.Because, c.because)
			}
		})
	}
}

func TestAWindowOfAKeyWhoseStreamsAreAllIdle(t *testing.T) {
	now := base + 60_000
	for _, mode := range []watermark.IdleMode{watermark.Advance, watermark.Hold} {
		in := fleet(now)
		in.Stream.IdleMode = mode
		for name, s := range in.Streams {
			s.Idle = true
			in.Streams[name] = s
		}
		e := Build(in)
		w := e.Windows[1].WaitsFor
		if e.Combined != "highest_idle" || e.Watermark != Time(base+9499) || w == nil || !w.AllIdle || len(w.Streams) != 2 {
			t.Fatalf("%s: combined %s watermark %d waits %+v", mode, e.Combined, e.Watermark, w)
		}
		switch {
		case mode == watermark.Advance && (w.AtCurrentRate.At == nil || *w.AtCurrentRate.InMS != 500):
			t.Errorf("advance: %+v, want in 500 ms", w.AtCurrentRate)
		case mode == watermark.Hold && w.AtCurrentRate.At != nil:
			t.Errorf("hold: %+v, want never", w.AtCurrentRate)
		}
		if !strings.Contains(e.Windows[1].Why, "every stream that fed it is idle (a and b)") {
			t.Errorf("%s: %s", mode, e.Windows[1].Why)
		}
	}
}

func TestTheTextOfARunningDaemonCountsFromTheLastReading(t *testing.T) {
	var b strings.Builder
	Write(&b, Build(fleet(base+12_000)))
	out := b.String()
	for _, want := range []string{
		"last reading arrived 2024-12-02T12:00:06.000Z (1733140806000) (6s ago)",
		"counted from each one's last reading",
		"at the current rate it fires in about 4.5s",
		"if they fall silent now it fires in about 28s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "Late counts are metrics") || strings.Contains(out, "restart") {
		t.Errorf("a running daemon's text speaks of a data dir:\n%s", out)
	}
}

func TestJSONShowsNoValueAsNull(t *testing.T) {
	in := fleet(0)
	in.State.Windows[1].Values = []windows.NamedValue{{Name: "avg_t", Value: math.NaN()}}
	b, err := json.Marshal(Build(in))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"values":{"avg_t":null}`) {
		t.Errorf("%s", b)
	}
}
