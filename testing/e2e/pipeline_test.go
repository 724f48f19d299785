package e2e

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// The feed of TestEveryResultMatchesTheOracleAndEveryReadingIsAccountedFor.
const (
	plSeed        = 20241202
	plT0          = int64(1_733_140_000_000) // event time of the first reading, on a window boundary
	plSensors     = 4                        // s-0 .. s-3; s-3 goes silent after the first half
	plReadings    = 120                      // per talking sensor, ~50 ms of event time apart
	plSilentAfter = 60                       // readings of s-3
	plBound       = 200                      // max_out_of_orderness, ms
	plLateness    = 300                      // allowed_lateness, ms
	plIdle        = time.Second              // idle_timeout
	plPace        = 50 * time.Millisecond    // between readings of a talking sensor in the second half
	plSize        = 1000                     // tumbling window size, ms
)

var plAggregates = []string{"count", "sum(temp)", "min(temp)", "max(temp)", "avg(temp)"}

// Two devices read the same sensor topics: "line" keys its windows by sensor
// (topic segment), so every sensor runs on its own clock; "plant" keys them
// by a payload field all sensors share, so its one window actor is fed by
// every stream and its valve takes the minimum over them.
func plPipelineConfig(t *testing.T, url, p string) string {
	t.Helper()
	device := func(id, key, window string) string {
		return fmt.Sprintf(`
device: %[1]s
streams:
  - name: sensors
    topic: %[2]s/+/data
    qos: 1
    timestamp: {field: ts, unit: ms}
    key: %[3]s
    watermark: {strategy: bounded, max_out_of_orderness: %[4]dms, interval: 20ms, idle_timeout: %[5]s, idle_mode: advance}
windows:
  - name: %[6]s
    stream: sensors
    type: tumbling
    size: %[7]dms
    allowed_lateness: %[8]dms
    aggregates: [%[9]s]
    output: {topic: "%[2]s/out/{device}/{window}/{key}", qos: 1}
    late: topic:%[2]s/late
`, id, p, key, plBound, plIdle, window, plSize, plLateness, strings.Join(plAggregates, ", "))
	}
	return harness.WriteConfig(t, daemonYAML("memory", url, p), map[string]string{
		"line.yaml":  device("line", "{topic_segment: 1}", "per-sensor"),
		"plant.yaml": device("plant", "{field: site}", "fleet"),
	})
}

// plFeed generates every sensor's readings, each sensor's in its own arrival
// order: disorder below the bound, and some readings up to 1.5 s further
// behind, which miss their window and its allowed lateness.
func plFeed() map[string][]plReading {
	feed := map[string][]plReading{}
	n := 0
	for s := range plSensors {
		sensor := fmt.Sprintf("s-%d", s)
		events := oracle.Generate(oracle.Config{
			Seed: plSeed + uint64(s), Keys: 1, Events: plReadings, Start: plT0, Step: 50,
			Disorder: 150, LateFraction: 0.08, LateBy: 1500, Fields: plTemp,
		})
		if s == plSensors-1 {
			events = events[:plSilentAfter]
		}
		for _, e := range events {
			e.Key = sensor
			feed[sensor] = append(feed[sensor], plReading{Sensor: sensor, N: n, Event: e})
			n++
		}
	}
	return feed
}

// plPredictLate replays one sensor's readings through the oracle's naive
// lateness rules with the stream's bounded watermark (max seen - bound - 1,
// advanced before each reading is judged, as the source does): the sequence
// numbers of the readings a correct edged sends to the late output.
func plPredictLate(t *testing.T, readings []plReading) []int {
	sim := oracle.NewSim(windows.Tumbling(plSize, 0), plLateness)
	maxTS := int64(math.MinInt64)
	var late []int
	for _, r := range readings {
		maxTS = max(maxTS, r.Event.TS)
		sim.Advance(maxTS - plBound - 1)
		switch sim.Offer(r.Event) {
		case windows.LateOutput:
			late = append(late, r.N)
		case windows.Dropped:
			t.Fatalf("the oracle drops reading %d of %s; the feed should only make late ones", r.N, r.Sensor)
		}
	}
	return late
}

func TestEveryResultMatchesTheOracleAndEveryReadingIsAccountedFor(t *testing.T) {
	t.Parallel()
	t.Logf("seed %d", plSeed)
	mq := broker.Start(t)
	p := fmt.Sprintf("pl-pipe-%d", time.Now().UnixNano())
	path := plPipelineConfig(t, mq.URL(), p)
	results := plCollect(t, mq.URL(), p+"/out/#", false)
	lateOut := plCollect(t, mq.URL(), p+"/late", false)
	e := harness.Start(t, path)
	pub := plPublish(t, mq.URL())

	// First every sensor publishes its first half at once; then s-3 falls
	// silent while the others go on, paced like live sensors (one reading
	// each per plPace, about what their event time advances), for well past
	// the silent sensor's idle_timeout.
	feed := plFeed()
	silent := fmt.Sprintf("s-%d", plSensors-1)
	sent := 0
	round := func(i int) {
		for s := range plSensors {
			sensor := fmt.Sprintf("s-%d", s)
			if i < len(feed[sensor]) {
				pub.send(fmt.Sprintf("%s/%s/data", p, sensor), feed[sensor][i].payload())
				sent++
			}
		}
	}
	var silentSince int64 // not after edged received the silent sensor's last reading
	for i := range plSilentAfter {
		if i == plSilentAfter-1 {
			silentSince = time.Now().UnixMilli()
		}
		round(i)
	}
	var talkedUntil int64 // not after edged received the talking sensors' last readings
	pace := time.NewTicker(plPace)
	for i := plSilentAfter; i < plReadings; i++ {
		<-pace.C // a live sensor's rhythm, not a wait for edged
		if i == plReadings-1 {
			talkedUntil = time.Now().UnixMilli()
		}
		round(i)
	}
	pace.Stop()
	pub.flush()

	dropped := func(device string) int {
		return int(plMetric(t, e, "edged_dropped_total", map[string]string{"device": device}) +
			plMetric(t, e, "edged_overload_dropped_total", map[string]string{"device": device}))
	}
	lateOf := func(device string) []plLate {
		var out []plLate
		for _, l := range lateOut.late(t) {
			if l.Device == device {
				out = append(out, l)
			}
		}
		return out
	}
	// Every reading ends up counted in a result, as late, or as dropped; the
	// silent sensor and then the others go idle, so every window fires.
	harness.Eventually(t, 20*time.Second, "every reading counted in a result, as late or as dropped", func() bool {
		rs := results.results(t)
		return plCount(rs, "line", "per-sensor")+len(lateOf("line"))+dropped("line") == sent &&
			plCount(rs, "plant", "fleet")+len(lateOf("plant"))+dropped("plant") == sent
	})
	rs := results.results(t)

	bySensorN := map[string]map[int]plReading{}
	for sensor, readings := range feed {
		bySensorN[sensor] = map[int]plReading{}
		for _, r := range readings {
			bySensorN[sensor][r.N] = r
		}
	}
	aggs, err := windows.ParseAggregates(plAggregates)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ device, window, key string }{
		{"line", "per-sensor", ""}, // key: the sensor
		{"plant", "fleet", "plant"},
	} {
		t.Run(tc.device, func(t *testing.T) {
			late := lateOf(tc.device)
			if got := int(plMetric(t, e, "edged_late_total", map[string]string{"device": tc.device, "reason": "too_late"})); got != len(late) {
				t.Errorf("edged_late_total = %d, but %d late records were published", got, len(late))
			}
			if d := dropped(tc.device); d != 0 {
				t.Errorf("%d readings dropped; with tumbling windows a reading past cleanup is always late, never dropped", d)
			}
			if len(late) == 0 {
				t.Error("no reading was late; the feed is meant to have some")
			}
			lateN := map[int]bool{}
			for _, l := range late {
				sensor := strings.Split(l.Stream, "/")[1]
				n := plPayloadN(t, l.Payload)
				r, ok := bySensorN[sensor][n]
				switch {
				case !ok:
					t.Errorf("late record for a reading never sent: %+v", l)
					continue
				case lateN[n]:
					t.Errorf("reading %d of %s published late twice", n, sensor)
				case l.Reason != "too_late" || l.Window != tc.window || l.TS != r.Event.TS:
					t.Errorf("late record %+v for reading %+v: want reason too_late, window %s, its ts", l, r, tc.window)
				case l.Watermark == nil || l.TS+plLateness > *l.Watermark || len(l.Missed) == 0:
					t.Errorf("late record %+v: ts + allowed lateness is after the watermark it met, or it missed no window", l)
				}
				for _, w := range l.Missed {
					if l.Watermark != nil && w.End-1+plLateness > *l.Watermark {
						t.Errorf("late record %+v: window %+v was not past cleanup", l, w)
					}
				}
				lateN[n] = true
			}

			var accepted []oracle.Event
			for _, readings := range feed {
				for _, r := range readings {
					if lateN[r.N] {
						continue
					}
					ev := r.Event
					if tc.key != "" {
						ev.Key = tc.key
					}
					accepted = append(accepted, ev)
				}
			}
			counted := plCheckAgainstOracle(t, rs, tc.device, tc.window, plSize, aggs, accepted)
			if counted+len(late) != sent {
				t.Errorf("results count %d readings and %d were late: %d, but %d were sent", counted, len(late), counted+len(late), sent)
			}
			t.Logf("%s: %d sent, %d in results, %d late", tc.device, sent, counted, len(late))

			// With one stream per key, which readings are late is fixed by the
			// order of each sensor's readings alone.
			if tc.device == "line" {
				var got, want []int
				for sensor, readings := range feed {
					want = append(want, plPredictLate(t, readings)...)
					for _, l := range late {
						if strings.Split(l.Stream, "/")[1] == sensor {
							got = append(got, plPayloadN(t, l.Payload))
						}
					}
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("late readings %v, the oracle says %v", got, want)
				}
			}
		})
	}

	t.Run("a silent sensor holds back only the keys it feeds, and only until it is idle", func(t *testing.T) {
		silentWM := int64(math.MinInt64)
		for _, r := range feed[silent] {
			silentWM = max(silentWM, r.Event.TS-plBound-1)
		}
		idleAt := silentSince + plIdle.Milliseconds() // at the earliest
		first := map[harness.ID]harness.Result{}      // the on-time firing of every window
		for _, r := range rs {
			if r.Revision == 0 {
				first[r.ID()] = r
			}
		}
		held, freed := 0, 0
		for id, r := range first {
			if id.Device != "plant" || r.End-1 <= silentWM {
				continue
			}
			// The fleet key is fed by the silent sensor too: its valve waits
			// for it until it has been quiet for idle_timeout, then goes on
			// with the others while it stays silent.
			held++
			if r.EmittedAt < idleAt {
				t.Errorf("fleet window [%d, %d) fired at %d, before the silent sensor went idle at %d", r.Start, r.End, r.EmittedAt, idleAt)
			}
			if r.EmittedAt < talkedUntil {
				freed++
			}
		}
		if held == 0 || freed == 0 {
			t.Errorf("of %d fleet windows past the silent sensor's watermark, %d fired while the other sensors were still talking; want some", held, freed)
		}
		// A talking sensor's own windows fire on its own readings while the
		// silent sensor is quiet but not yet idle.
		for s := range plSensors - 1 {
			sensor := fmt.Sprintf("s-%d", s)
			early := 0
			for id, r := range first {
				if id.Device == "line" && id.Key == sensor && r.End-1 > silentWM && r.EmittedAt < idleAt {
					early++
				}
			}
			if early == 0 {
				t.Errorf("no window of %s past the silent sensor's watermark %d fired before it went idle at %d", sensor, silentWM, idleAt)
			}
		}
	})
}
