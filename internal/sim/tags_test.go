package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// churnConfig is the soak's churn of tags, shortened: 20 tags
// live at any time, a new cohort of 20 every 10 minutes, each reporting every
// 10 s for 10 minutes.
func churnConfig() TagConfig {
	return TagConfig{
		Cohort: 20, Every: 10 * time.Minute, Life: 10 * time.Minute, Period: 10 * time.Second,
		Duration: 30 * time.Minute, Disorder: time.Second,
		LateFraction: 0.05, LateBy: 30 * time.Second, TooLateFraction: 0.02, TooLateBy: 5 * time.Minute,
		Seed: 11, Start: testStart,
	}
}

func collectTags(t *testing.T, cfg TagConfig) []Message {
	t.Helper()
	f, err := NewTagFeed(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []Message
	for m, ok := f.Next(); ok; m, ok = f.Next() {
		out = append(out, m)
	}
	return out
}

func TestEveryTagOfACohortReportsForItsLifeThenNeverAgain(t *testing.T) {
	cfg := churnConfig()
	msgs := collectTags(t, cfg)
	type span struct{ n, first, last int64 }
	tags := map[int]*span{}
	var late, tooLate int
	for i, m := range msgs {
		if i > 0 && m.At < msgs[i-1].At {
			t.Fatalf("message %d sent at %d before message %d at %d", i, m.At, i-1, msgs[i-1].At)
		}
		s := tags[m.Sensor]
		if s == nil {
			s = &span{first: m.TS, last: m.TS}
			tags[m.Sensor] = s
		}
		s.n++
		s.first, s.last = min(s.first, m.TS), max(s.last, m.TS)
		var p struct {
			Tag  string
			TS   int64
			RSSI int
		}
		if err := json.Unmarshal(m.Payload, &p); err != nil || p.Tag != TagName(m.Sensor) || p.TS != m.TS || m.Topic != "tags/"+p.Tag {
			t.Fatalf("message %d: topic %s payload %s does not match (err %v)", i, m.Topic, m.Payload, err)
		}
		delay := m.At - m.TS
		switch {
		case m.Late:
			late++
			if delay != cfg.LateBy.Milliseconds() {
				t.Errorf("late message %d delayed %d ms, want %d", i, delay, cfg.LateBy.Milliseconds())
			}
		case m.TooLate:
			tooLate++
			if delay != cfg.TooLateBy.Milliseconds() {
				t.Errorf("too-late message %d delayed %d ms, want %d", i, delay, cfg.TooLateBy.Milliseconds())
			}
		case delay < 0 || delay > cfg.Disorder.Milliseconds():
			t.Errorf("message %d delayed %d ms, want 0..%d", i, delay, cfg.Disorder.Milliseconds())
		}
	}
	if len(tags) != 60 || len(msgs) != 60*60 {
		t.Fatalf("%d tags sent %d readings, want 60 tags sending 60 readings each", len(tags), len(msgs))
	}
	for n, s := range tags {
		cohort := int64((n - 1) / cfg.Cohort)
		begin := testStart + cohort*cfg.Every.Milliseconds()
		if s.n != 60 || s.first < begin || s.last >= begin+cfg.Life.Milliseconds() {
			t.Errorf("tag %d sent %d readings from %d to %d, want 60 within [%d, %d)", n, s.n, s.first, s.last, begin, begin+cfg.Life.Milliseconds())
		}
	}
	for _, m := range msgs {
		if (m.Late || m.TooLate) && m.At > tags[m.Sensor].last {
			t.Errorf("tag %d's held-back reading at %d arrives at %d, after its last reading at %d", m.Sensor, m.TS, m.At, tags[m.Sensor].last)
		}
	}
	if late == 0 || tooLate == 0 {
		t.Errorf("%d late and %d too-late readings: the feed holds none back", late, tooLate)
	}
}

func TestOneTopicForAllTagsKeepsTheSameReadings(t *testing.T) {
	cfg := churnConfig()
	perTag := collectTags(t, cfg)
	cfg.Topic = "tags"
	shared := collectTags(t, cfg)
	if len(shared) != len(perTag) {
		t.Fatalf("%d readings on one topic, %d on per-tag topics", len(shared), len(perTag))
	}
	for i := range shared {
		if shared[i].Topic != "tags" || string(shared[i].Payload) != string(perTag[i].Payload) || shared[i].At != perTag[i].At {
			t.Fatalf("reading %d: %s %s at %d on one topic, %s %s at %d per tag", i,
				shared[i].Topic, shared[i].Payload, shared[i].At, perTag[i].Topic, perTag[i].Payload, perTag[i].At)
		}
	}
}

func TestInvalidTagConfigsReportEveryProblem(t *testing.T) {
	_, err := NewTagFeed(TagConfig{LateFraction: 2})
	for _, w := range []string{"cohort is 0", "period must be above 0", "late fraction is 2"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v, want it to mention %q", err, w)
		}
	}
}
