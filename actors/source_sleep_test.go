package actors

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/edged/edged/configs"
)

// sleepDevice has a stream of each kind a source sleeps differently in: keys that
// are topics with a timer grid (idle ones wake at its times and once a second to be
// saved), keys several topics feed with session windows (idle ones never sleep while
// advancing), a stream that holds when idle and never extrapolates, and one checked
// at a longer interval than the others (it never sleeps).
const sleepDevice = `
device: d
streams:
  - name: grid
    topic: g/+
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 300ms, interval: 100ms, idle_timeout: 700ms}
  - name: shared
    topic: s/+
    timestamp: {field: ts, unit: ms}
    key: {field: k}
    watermark: {strategy: bounded, max_out_of_orderness: 200ms, interval: 100ms, idle_timeout: 500ms}
  - name: held
    topic: h/+
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 200ms, interval: 100ms, idle_timeout: 400ms, idle_mode: hold}
  - name: slow
    topic: w/+
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 200ms, interval: 300ms, idle_timeout: 600ms}
windows:
  - {name: tumble, stream: grid, type: tumbling, size: 1s, allowed_lateness: 400ms, aggregates: [count, sum(v)]}
  - {name: slide, stream: grid, type: sliding, size: 2s, slide: 500ms, aggregates: [count, max(v)]}
  - {name: sess, stream: shared, type: session, gap: 600ms, allowed_lateness: 300ms, aggregates: [count, sum(v)]}
  - {name: held, stream: held, type: tumbling, size: 1s, allowed_lateness: 200ms, aggregates: [count]}
  - {name: slow, stream: slow, type: tumbling, size: 1s, aggregates: [count]}
`

// burstyInput is a replay of sensors that report in bursts, out of order, with
// quiet gaps long enough to go idle, watermark marks in between, and readings late
// against where an idle stream's watermark extrapolated.
func burstyInput(seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	const start = 1_733_140_000_000
	type sensor struct {
		topic, key string
		next, ts   int64
	}
	var sensors []*sensor
	for _, prefix := range []string{"g", "s", "h", "w"} {
		for i := range 3 {
			sensors = append(sensors, &sensor{topic: fmt.Sprintf("%s/%d", prefix, i), key: fmt.Sprintf("k%d", i%2), next: rng.Int64N(500), ts: start})
		}
	}
	for at := int64(0); at < 30_000; at += 10 {
		for _, s := range sensors {
			if at < s.next {
				continue
			}
			s.ts += 50 + rng.Int64N(200)
			ts := s.ts - rng.Int64N(600) // out of order, some of it late
			if rng.IntN(10) == 0 {
				ts -= 1_000 + rng.Int64N(3_000) // late against an extrapolated watermark
			}
			fmt.Fprintf(&b, `{"at":%d,"topic":%q,"payload":{"ts":%d,"k":%q,"v":%d}}`+"\n", at, s.topic, ts, s.key, rng.IntN(100))
			s.next = at + 50 + rng.Int64N(200)
			if rng.IntN(8) == 0 {
				gap := 300 + rng.Int64N(4_000) // quiet, often past the idle timeout
				s.next += gap
				s.ts += gap
			}
		}
		if rng.IntN(400) == 0 {
			fmt.Fprintf(&b, `{"at":%d,"stream":"g/%d","watermark":%d}`+"\n", at, rng.IntN(3), start+at-2_000)
		}
	}
	return b.String()
}

func replayString(t *testing.T, cfg *configs.Daemon, input string, watermarks bool) string {
	t.Helper()
	var out bytes.Buffer
	if _, err := Replay(ReplayOptions{Config: cfg, Input: strings.NewReader(input), Output: &out, Watermarks: watermarks}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestSleepingSourcesChangeNoResult replays bursty sensors with sources that sleep
// through their quiet checks and with sources ticked at every one (watermarks
// traced), and wants the same results and late records, byte for byte.
func TestSleepingSourcesChangeNoResult(t *testing.T) {
	cfg := replayConfig(t, sleepDevice)
	for seed := range uint64(4) {
		input := burstyInput(seed)
		asleep := replayString(t, cfg, input, false)
		var ticked strings.Builder
		for line := range strings.Lines(replayString(t, cfg, input, true)) {
			if !strings.HasPrefix(line, `{"watermark"`) {
				ticked.WriteString(line)
			}
		}
		if asleep != ticked.String() {
			t.Fatalf("seed %d: sleeping sources changed the output:\n%s", seed, firstDifference(asleep, ticked.String()))
		}
		if n := strings.Count(asleep, `"late"`); n == 0 {
			t.Fatalf("seed %d: no late record: the input tests too little", seed)
		}
	}
}

// firstDifference shows where output got first differs from want.
func firstDifference(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d:\n  got:  %s\n  want: %s", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
}

// TestAQuietSourceSleepsUntilItsNextUsefulCheck drives a pipeline's ticks over a
// quiet topic and checks when the pipeline was told to tick its source next: at the
// check that declares it idle, then where its extrapolated watermark reaches a timer,
// and, after a record, at every tick again. Its gauges read as a ticked source's
// would, and a restart would restore the watermark a ticked source had up to a second
// before (pipeline_uptime.go).
func TestAQuietSourceSleepsUntilItsNextUsefulCheck(t *testing.T) {
	// Windows of 10 s: timers 10 s apart.
	topo, _, _ := newTestTopology(t, strings.Replace(quietDevice("{topic_segment: 1}"), "size: 1s", "size: 10s", 1))
	const t0 = 1733140005000
	topo.router.route(&Inbound{Topic: "t/a", Payload: []byte(`{"ts":1733140005000}`), At: 0}, nil)
	h := topo.router.devices[0].sources.get("t/a")
	until := func() int64 {
		if z := h.sleep.Load(); z != nil {
			return z.until
		}
		return math.MinInt64
	}
	st := topo.env.metrics.Streams.Topic("d", "s", "t/a")
	var got, saved []int64
	last := int64(math.MinInt64)
	for now := int64(0); now <= 5200; now += 10 {
		topo.tick(now)
		if u := until(); u != last {
			got, last = append(got, now, u), u
		}
		s, ok, err := topo.env.store.LoadStream("d", "t/a")
		if err != nil {
			t.Fatal(err)
		}
		if n := len(saved); ok && (n == 0 || saved[n-1] != s.Watermark-t0) {
			saved = append(saved, s.Watermark-t0)
		}
		// The gauges read as if the source had been ticked.
		wm := int64(t0 - 1)
		if now >= 70 {
			wm += now
			if g := st.WatermarkAt(now); g != float64(wm)/1000 {
				t.Fatalf("at %d the watermark gauge reads %v, want %v", now, g, float64(wm)/1000)
			}
		}
		if g := st.LagAt(now); g != float64(now-wm)/1000 {
			t.Fatalf("at %d the lag gauge reads %v, want %v", now, g, float64(now-wm)/1000)
		}
	}
	// The check at 0 sees the record, the one at 10 starts the countdown, so the
	// stream is idle at the first check past 10+50: 70. It extrapolates from t0-1
	// at 0 and sleeps until the grid's next timer (the firing at t0+4999, at 5000;
	// the cleanup at t0+5299, at 5300).
	want := []int64{
		10, 61,
		70, 5000,
		5000, 5300,
	}
	if !slices.Equal(got, want) {
		t.Errorf("(tick, sleeps until) = %v, want %v", got, want)
	}
	// The commit at 100 saves the idle state, with t0+99; then only the uptime
	// moves, from 1000 every second of it, and the store reads the state drifted
	// to it: the watermark of a ticked source then, t0-1 + uptime.
	if want := []int64{-1, 99, 999, 1999, 2999, 3999, 4999}; !slices.Equal(saved, want) {
		t.Errorf("saved watermarks - t0 = %v, want %v", saved, want)
	}
	topo.router.route(&Inbound{Topic: "t/a", Payload: []byte(`{"ts":1733140006000}`), At: 5205}, nil)
	if z := h.sleep.Load(); z != nil {
		t.Fatalf("a record left the source asleep until %d", z.until)
	}
}
