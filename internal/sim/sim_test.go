package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

const testStart = 1_733_140_000_000

func baseConfig() Config {
	return Config{
		Sensors: 10, Rate: 5, Duration: 20 * time.Second,
		Disorder: 300 * time.Millisecond, LateFraction: 0.1, LateBy: 2 * time.Second,
		Silent: 2, SilentAfter: 10 * time.Second, Seed: 7, Start: testStart,
	}
}

func collect(t *testing.T, cfg Config) []Message {
	t.Helper()
	f, err := NewFeed(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []Message
	for m, ok := f.Next(); ok; m, ok = f.Next() {
		out = append(out, m)
	}
	return out
}

func TestTheSameSeedAndStartGiveTheSameFeed(t *testing.T) {
	other := baseConfig()
	other.Seed = 8
	shifted := baseConfig()
	shifted.Start += 1000
	cases := []struct {
		name string
		cfg  Config
		same bool
	}{
		{"same config", baseConfig(), true},
		{"another seed", other, false},
		{"another start", shifted, false},
	}
	want := collect(t, baseConfig())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := collect(t, c.cfg)
			equal := len(got) == len(want)
			for i := 0; equal && i < len(got); i++ {
				equal = got[i].At == want[i].At && got[i].Topic == want[i].Topic && bytes.Equal(got[i].Payload, want[i].Payload)
			}
			if equal != c.same {
				t.Errorf("feeds equal = %v, want %v", equal, c.same)
			}
		})
	}
}

func TestMessagesComeInSendOrderDelayedWithinTheDisorderOrExactlyLateBy(t *testing.T) {
	cfg := baseConfig()
	msgs := collect(t, cfg)
	seen := map[[2]int64]bool{}
	for i, m := range msgs {
		if i > 0 && m.At < msgs[i-1].At {
			t.Fatalf("message %d sent at %d before message %d at %d", i, m.At, i-1, msgs[i-1].At)
		}
		delay := m.At - m.TS
		switch {
		case m.Late && delay != cfg.LateBy.Milliseconds():
			t.Errorf("late message %d delayed %d ms, want %d", i, delay, cfg.LateBy.Milliseconds())
		case !m.Late && (delay < 0 || delay > cfg.Disorder.Milliseconds()):
			t.Errorf("message %d delayed %d ms, want 0..%d", i, delay, cfg.Disorder.Milliseconds())
		}
		if id := [2]int64{int64(m.Sensor), m.TS}; seen[id] {
			t.Errorf("sensor %d sent two readings at event time %d", m.Sensor, m.TS)
		} else {
			seen[id] = true
		}
		var p struct {
			Sensor    string
			TS        int64
			Temp, Hum float64
		}
		if err := json.Unmarshal(m.Payload, &p); err != nil || p.TS != m.TS || p.Sensor != SensorName(m.Sensor) ||
			m.Topic != "sensors/"+p.Sensor+"/data" {
			t.Fatalf("message %d: topic %s payload %s does not match (err %v)", i, m.Topic, m.Payload, err)
		}
	}
}

func TestCountsFollowTheRatePerSensorAndSilentSensorsStopHalfway(t *testing.T) {
	cfg := baseConfig()
	tally := NewTally(cfg)
	for _, m := range collect(t, cfg) {
		tally.Add(&m)
	}
	s := tally.Summary()
	if want := []string{"s-9", "s-10"}; strings.Join(s.Silent, ",") != strings.Join(want, ",") {
		t.Errorf("silent sensors %v, want %v", s.Silent, want)
	}
	for i, c := range s.Sensors {
		want, end := 100, testStart+cfg.Duration.Milliseconds() // 5/s for 20 s
		if i >= 8 {
			want, end = 50, testStart+cfg.SilentAfter.Milliseconds()
		}
		if c.Sent != want || c.LastTS >= end || c.LastTS < end-200 {
			t.Errorf("%s sent %d readings, the last at %d; want %d, the last just before %d", c.Sensor, c.Sent, c.LastTS, want, end)
		}
	}
	if frac := float64(s.Late) / float64(s.Total); math.Abs(frac-cfg.LateFraction) > 0.04 {
		t.Errorf("%d of %d readings late (%.3f), want about %v", s.Late, s.Total, frac, cfg.LateFraction)
	}
}

func TestSilentSensorsComeBackAfterSilentForEverySilentEvery(t *testing.T) {
	cfg := Config{Sensors: 3, Rate: 1, Duration: 10 * time.Minute, Silent: 1, SilentAfter: time.Minute,
		SilentFor: 2 * time.Minute, SilentEvery: 5 * time.Minute, Seed: 5, Start: testStart}
	quiet := func(ts int64) bool {
		since := ts - testStart
		return since >= 60_000 && since < 180_000 || since >= 360_000 && since < 480_000
	}
	var loud, silent int
	for _, m := range collect(t, cfg) {
		switch {
		case m.Sensor != 3:
			loud++
		case quiet(m.TS):
			t.Errorf("silent sensor sent a reading at %d ms, within a silence", m.TS-testStart)
		default:
			silent++
		}
	}
	if loud != 2*600 || silent != 600-240 {
		t.Errorf("the other sensors sent %d readings and the silent one %d, want 1200 and 360", loud, silent)
	}
}

func TestTooLateReadingsAreHeldBackByTooLateBy(t *testing.T) {
	cfg := baseConfig()
	cfg.Silent = 0
	without := collect(t, cfg)
	cfg.TooLateFraction, cfg.TooLateBy = 0.05, 9*time.Second
	with := collect(t, cfg)
	if len(with) != len(without) {
		t.Fatalf("%d readings with too-late ones, %d without", len(with), len(without))
	}
	var tooLate int
	for i, m := range with {
		if m.TooLate {
			tooLate++
			if m.Late || m.At-m.TS != cfg.TooLateBy.Milliseconds() {
				t.Errorf("too-late message %d delayed %d ms (late %v), want %d", i, m.At-m.TS, m.Late, cfg.TooLateBy.Milliseconds())
			}
		}
	}
	if frac := float64(tooLate) / float64(len(with)); frac < 0.02 || frac > 0.08 {
		t.Errorf("%d of %d readings too late, want about 5 %%", tooLate, len(with))
	}
}

func TestInvalidConfigsReportEveryProblem(t *testing.T) {
	cases := []struct {
		name  string
		cfg   Config
		wants []string
	}{
		{"no sensors and no rate", Config{}, []string{"sensors is 0", "rate is 0"}},
		{"late without late-by", Config{Sensors: 1, Rate: 1, LateFraction: 0.5}, []string{"late-by above 0"}},
		{"more silent than sensors", Config{Sensors: 2, Rate: 1, Silent: 3}, []string{"silent is 3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewFeed(c.cfg)
			for _, w := range c.wants {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v, want it to mention %q", err, w)
				}
			}
		})
	}
}

func TestReplayLinesHoldTheSendTimeTopicAndPayload(t *testing.T) {
	cfg := baseConfig()
	want := collect(t, cfg)
	f, _ := NewFeed(cfg)
	var buf bytes.Buffer
	s, err := WriteReplay(&buf, f)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(want) || s.Total != len(want) {
		t.Fatalf("%d lines and total %d, want %d", len(lines), s.Total, len(want))
	}
	for i, l := range lines {
		var got struct {
			At      int64
			Topic   string
			Payload json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		if got.At != want[i].At || got.Topic != want[i].Topic || !bytes.Equal(got.Payload, want[i].Payload) {
			t.Fatalf("line %d is %s, want at %d topic %s payload %s", i, l, want[i].At, want[i].Topic, want[i].Payload)
		}
	}
}

func TestNonObjectPayloadsBecomeJSONStrings(t *testing.T) {
	cases := []struct{ payload, want string }{
		{`{"a":1}`, `{"at":5,"topic":"t","payload":{"a":1}}` + "\n"},
		{`not json`, `{"at":5,"topic":"t","payload":"not json"}` + "\n"},
		{`"quoted"`, `{"at":5,"topic":"t","payload":"\"quoted\""}` + "\n"},
		{` {"a":1}`, `{"at":5,"topic":"t","payload":" {\"a\":1}"}` + "\n"},
		{`{"a":`, `{"at":5,"topic":"t","payload":"{\"a\":"}` + "\n"},
	}
	for _, c := range cases {
		if got := string(AppendReplayLine(nil, 5, "t", []byte(c.payload))); got != c.want {
			t.Errorf("payload %q: line %q, want %q", c.payload, got, c.want)
		}
	}
}

// recorder is a Publisher that confirms every publish at once.
type recorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recorder) Publish(topic string, _ byte, payload []byte, done func(error)) {
	r.mu.Lock()
	r.msgs = append(r.msgs, topic+" "+string(payload))
	r.mu.Unlock()
	go done(nil)
}

func TestPublishSendsTheWholeFeedInOrder(t *testing.T) {
	cfg := Config{Sensors: 5, Rate: 50, Duration: 200 * time.Millisecond, Disorder: 50 * time.Millisecond, Seed: 3, Start: testStart}
	want := collect(t, cfg)
	f, _ := NewFeed(cfg)
	r := &recorder{}
	s := Publish(context.Background(), f, r, 1)
	if s.Total != len(want) || s.Failed != 0 || len(r.msgs) != len(want) {
		t.Fatalf("sent %d (failed %d), publisher saw %d, want %d", s.Total, s.Failed, len(r.msgs), len(want))
	}
	for i, m := range want {
		if r.msgs[i] != m.Topic+" "+string(m.Payload) {
			t.Fatalf("publish %d was %q, want %s %s", i, r.msgs[i], m.Topic, m.Payload)
		}
	}
}

func TestPublishStopsWhenTheContextEnds(t *testing.T) {
	cfg := Config{Sensors: 2, Rate: 10, Seed: 3, Start: time.Now().UnixMilli()} // endless
	f, _ := NewFeed(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	r := &recorder{}
	cancel()
	s := Publish(ctx, f, r, 0)
	if s.Total > 2 {
		t.Errorf("sent %d messages after the context ended, want at most the first due ones", s.Total)
	}
}
