package actors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/edged/edged/testing/longtest"
)

// TestPassivationAtRandomPointsChangesNoOutput replays random feeds twice into a data
// dir, restarting twice on the way: once with no actor ever passivated, once with
// window actors and sources passivated after random delays, down to none at all. The
// outputs must be byte-identical: a passivated actor that comes back behaves as one
// that never stopped. The feeds have sensors that go silent and come back (idleness
// in advance and hold mode), tags that come and go and move between readers (keys
// fed by several topics), late and too-late readings, sessions, sliding windows,
// discarding windows and early firings. Some late readings bridge into a session and
// move its start back onto a purged session's (the test fails if none does): a key
// keeps that start's tomb, and must not be passivated while it matters.
var feedKinds = "st"

func TestPassivationAtRandomPointsChangesNoOutput(t *testing.T) {
	passivationProperty(t, 4)
}

// The same property over sixteen feeds (the first four are the ones above).
func TestLongPassivationAtRandomPointsOfSixteenFeedsChangesNoOutput(t *testing.T) {
	longtest.Skip(t)
	passivationProperty(t, 16)
}

// passivationProperty checks the property on seeds feeds; SEEDS and FEED in the
// environment override the number of feeds and their kinds.
func passivationProperty(t *testing.T, seeds int) {
	if k := os.Getenv("FEED"); k != "" {
		feedKinds = k
	}
	if n, err := strconv.Atoi(os.Getenv("SEEDS")); err == nil {
		seeds = n
	}
	revived := 0
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0x9a551fe))
			device, lines := passivationFeed(rng, feedKinds)
			cuts := []int{rng.IntN(len(lines)), rng.IntN(len(lines))}
			if cuts[0] > cuts[1] {
				cuts[0], cuts[1] = cuts[1], cuts[0]
			}
			never := func(int) int64 { return -1 }
			delays := rand.New(rand.NewPCG(seed, 7))
			random := func(int) int64 { return delays.Int64N(4) * 300 }
			want, _ := replaySegments(t, device, lines, cuts, never, never)
			revived += revivedStarts(t, want)
			got, passivated := replaySegments(t, device, lines, cuts, random, random)
			if d := os.Getenv("DUMP"); d != "" {
				os.WriteFile(d+".got", []byte(got), 0o644)
				os.WriteFile(d+".want", []byte(want), 0o644)
				os.WriteFile(d+".feed", []byte(strings.Join(lines, "\n")), 0o644)
			}
			if got != want {
				t.Fatalf("seed %d: output with passivation differs:\n%s\ndevice:\n%s", seed, firstDifference(got, want), device)
			}
			if passivated == 0 {
				t.Errorf("seed %d: nothing was passivated", seed)
			}
		})
	}
	t.Logf("%d session starts revived by late readings", revived)
	if revived == 0 {
		t.Errorf("no late reading bridged into a session and took a purged session's start: the feeds no longer cover tombs")
	}
}

// revivedStarts counts the session rows of out that take the start of a session
// whose cleanup had passed (the feed's lateness: ses 400 ms, tagses 300 ms).
func revivedStarts(t *testing.T, out string) int {
	t.Helper()
	lateness := map[string]int64{"ses": 400, "tagses": 300}
	ends := map[string]int64{} // by window, key and start: the end of the last row
	n := 0
	for _, line := range strings.Split(out, "\n") {
		var r struct {
			Window, Key string
			Start, End  int64
			Watermark   *int64
		}
		if !strings.HasPrefix(line, `{"device"`) {
			continue
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %s: %v", line, err)
		}
		l, ok := lateness[r.Window]
		if !ok || r.Watermark == nil {
			continue
		}
		id := fmt.Sprint(r.Window, "/", r.Key, "/", r.Start)
		if end, ok := ends[id]; ok && end != r.End && *r.Watermark >= end-1+l {
			n++
		}
		ends[id] = r.End
	}
	return n
}

// replaySegments replays lines into one data dir in three runs, cut at cuts, the
// first two kept open, and returns the output and how many window actors were
// passivated.
func replaySegments(t *testing.T, device string, lines []string, cuts []int, keyDelay, sourceDelay func(int) int64) (string, float64) {
	t.Helper()
	cfg := replayConfig(t, device)
	dir := t.TempDir()
	var out bytes.Buffer
	passivated := 0.0
	bounds := []int{0, cuts[0], cuts[1], len(lines)}
	for i := range 3 {
		in := strings.Join(lines[bounds[i]:bounds[i+1]], "\n")
		o := ReplayOptions{Config: cfg, Input: strings.NewReader(in), Output: &out, DataDir: dir, KeepOpen: i < 2,
			keyDelay: keyDelay, sourceDelay: sourceDelay}
		o.Metrics = NewMetrics()
		if _, err := Replay(o); err != nil {
			t.Fatal(err)
		}
		passivated += counterSum(t, o.Metrics, "edged_window_passivations_total") + counterSum(t, o.Metrics, "edged_stream_passivations_total")
	}
	return out.String(), passivated
}

// passivationFeed returns a random device and a feed for it.
func passivationFeed(rng *rand.Rand, kinds string) (string, []string) {
	mode := func() string { return []string{"advance", "hold"}[rng.IntN(2)] }
	acc := func() string { return []string{"accumulating", "discarding"}[rng.IntN(2)] }
	early := "0s"
	if rng.IntN(3) == 0 {
		early = "400ms"
	}
	device := fmt.Sprintf(`device: p
streams:
  - name: sensors
    topic: s/+/d
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {max_out_of_orderness: 300ms, interval: 100ms, idle_timeout: 1s, idle_mode: %s, max_future_skew: 0s}
  - name: tags
    topic: r/+/b
    timestamp: {field: ts, unit: ms}
    key: {field: tag}
    watermark: {max_out_of_orderness: 200ms, interval: 100ms, idle_timeout: 800ms, idle_mode: %s, max_future_skew: 0s}
windows:
  - {name: tum, stream: sensors, type: tumbling, size: 1s, allowed_lateness: 500ms, accumulation: %s, early: %s, aggregates: [count, sum(v), max(v)], output: {topic: "o/{window}/{key}"}}
  - {name: ses, stream: sensors, type: session, gap: 700ms, allowed_lateness: 400ms, accumulation: %s, aggregates: [count, sum(v)], output: {topic: "o/{window}/{key}"}}
  - {name: slide, stream: sensors, type: sliding, size: 1500ms, slide: 500ms, aggregates: [count, min(v)], output: {topic: "o/{window}/{key}"}}
  - {name: tagmin, stream: tags, type: tumbling, size: 1s, allowed_lateness: 300ms, aggregates: [count, sum(v)], output: {topic: "o/{window}/{key}"}}
  - {name: tagses, stream: tags, type: session, gap: 600ms, allowed_lateness: 300ms, accumulation: %s, aggregates: [count], output: {topic: "o/{window}/{key}"}}
`, mode(), mode(), acc(), early, acc(), acc())

	const t0 = 1_733_140_000_000
	at := int64(t0)
	sensorOn := make([]bool, 6)
	sensorSkew := make([]int64, 6)
	for i := range sensorSkew {
		sensorSkew[i] = rng.Int64N(400) - 200
	}
	tagReaders := map[int][]int{} // live tags and the readers that see them
	var lines []string
	for range 1200 + rng.IntN(600) {
		at += 5 + rng.Int64N(40)
		if rng.IntN(150) == 0 {
			at += 1500 + rng.Int64N(4000) // everything goes quiet for a while
		}
		switch r := rng.IntN(10); {
		case r < 1: // a sensor goes silent or comes back
			i := rng.IntN(len(sensorOn))
			sensorOn[i] = !sensorOn[i]
		case r < 2: // a tag appears, moves, or leaves
			tag := rng.IntN(12)
			switch readers := tagReaders[tag]; {
			case readers == nil:
				tagReaders[tag] = []int{rng.IntN(3)}
			case rng.IntN(3) == 0 && len(readers) == 1:
				tagReaders[tag] = append(readers, rng.IntN(3)) // seen by a second reader
			case rng.IntN(2) == 0:
				tagReaders[tag] = []int{rng.IntN(3)} // moved
			default:
				delete(tagReaders, tag)
			}
		}
		ts := func(skew int64) int64 {
			t := at + skew - rng.Int64N(300)
			if rng.IntN(40) == 0 {
				t -= 400 + rng.Int64N(2500) // late, maybe too late
			}
			return t
		}
		if rng.IntN(3) > 0 && strings.Contains(kinds, "s") || !strings.Contains(kinds, "t") {
			i := rng.IntN(len(sensorOn))
			if sensorOn[i] {
				lines = append(lines, fmt.Sprintf(`{"at":%d,"topic":"s/%d/d","payload":{"ts":%d,"v":%d}}`, at, i, ts(sensorSkew[i]), rng.IntN(100)))
			}
			continue
		}
		for _, tag := range slices.Sorted(maps.Keys(tagReaders)) {
			readers := tagReaders[tag]
			if rng.IntN(len(tagReaders)+1) == 0 {
				reader := readers[rng.IntN(len(readers))]
				lines = append(lines, fmt.Sprintf(`{"at":%d,"topic":"r/%d/b","payload":{"tag":"t%d","ts":%d,"v":%d}}`, at, reader, tag, ts(0), rng.IntN(100)))
				break
			}
		}
	}
	return device, lines
}

// counterSum adds up every series of the counter named name.
func counterSum(t *testing.T, m *Metrics, name string) float64 {
	t.Helper()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() == name {
			for _, s := range f.GetMetric() {
				sum += s.GetCounter().GetValue()
			}
		}
	}
	return sum
}
