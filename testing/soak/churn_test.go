package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/internal/sim"
	"github.com/edged/edged/testing/longtest"
)

// churnSite is a churn of keys as a site of tags sees it: 200 tags live at any
// time, a new cohort of 200 every 10 minutes, each tag reporting every 10 s for
// 10 minutes (2,400 tags over 2 hours, 144,000 readings), a 1-minute tumbling
// window per tag and limits.max_keys_per_window 1000. perTag puts each tag on a
// topic of its own (tags/<tag>, a stream each); otherwise all share the topic
// tags and the key comes from the payload. Cohorts begin half a minute into a
// minute, so each tag's readings span 11 minute windows.
func churnSite(perTag bool) *site {
	topic, key := "tags", "{field: tag}"
	if perTag {
		topic, key = "tags/+", "{topic_segment: 1}"
	}
	start := int64(soakStart + 30_000)
	s := &site{
		start: start, day: 2 * time.Hour, days: 1,
		tags: &sim.TagConfig{
			Cohort: 200, Every: 10 * time.Minute, Life: 10 * time.Minute, Period: 10 * time.Second,
			Duration: 2 * time.Hour, Disorder: 500 * time.Millisecond, Seed: 32, Start: start, Topic: sim.DefaultTagTopic,
		},
		daemon: "log: {level: error}\nhttp: {listen: \"\"}\nlimits: {max_keys_per_window: 1000}\n",
		device: fmt.Sprintf(`device: site
streams:
  - name: %s
    topic: %s
    timestamp: {field: ts, unit: ms}
    key: %s
    watermark: {strategy: bounded, max_out_of_orderness: 1s, idle_timeout: 30s}
windows:
  - name: minute
    stream: %[1]s
    type: tumbling
    size: 1m
    aggregates: [count, avg(rssi), min(rssi), max(rssi)]
`, tagStream, topic, key),
	}
	if !perTag {
		s.tags.Topic = "tags"
	}
	return s
}

// churnWindows is the number of tag-minute windows of churnSite.
const churnWindows = 2400 * 11

// churnTotals sums a churn replay's rows (the day and the closing replay).
func churnTotals(rows []dayRow) (settled, refused, mismatches int, cpu time.Duration) {
	for _, r := range rows {
		settled += r.check.settled
		refused += r.check.refused
		mismatches += r.check.mismatches
		cpu += r.run.cpu
	}
	return settled, refused, mismatches, cpu
}

// TestLongChurningTagsAreNeverRefused replays that churn, the tags on one
// topic, and wants every tag-minute window, exact. (With a topic per tag the
// soak's one-day test covers it, and BenchmarkChurnTopics compares the costs.)
func TestLongChurningTagsAreNeverRefused(t *testing.T) {
	longtest.Skip(t)
	s := churnSite(false)
	t.Logf("seed %d", s.tags.Seed)
	var log strings.Builder
	rows, err := soak(s, edgedBinary(t), t.TempDir(), &log, func(dayRow) {})
	if err != nil {
		t.Fatal(err)
	}
	settled, refused, mismatches, cpu := churnTotals(rows)
	t.Logf("%d readings, %d windows checked, %d refused, %d mismatches, %.1f s of CPU", rows[0].readings, settled, refused, mismatches, cpu.Seconds())
	if rows[0].readings != 144_000 || settled != churnWindows {
		t.Fatalf("the feed has %d readings in %d windows, want 144000 in %d", rows[0].readings, settled, churnWindows)
	}
	// No more than 400 tags have open windows at any time: the key limit, which
	// counts live keys, never refuses one.
	if refused != 0 || mismatches != 0 {
		t.Errorf("%d readings refused (key_limit), %d windows missing or wrong; want none\n%s", refused, mismatches, log.String())
	}
}

// BenchmarkChurnTopics replays that churn with all tags on one topic and
// with a topic per tag, each through the edged binary as a child process, and
// reports the CPU seconds of each replay, their ratio (the target is at most
// 1.5) and the readings refused per replay. Run it with
//
//	go test -run '^$' -bench BenchmarkChurnTopics -benchtime 3x ./testing/soak
func BenchmarkChurnTopics(b *testing.B) {
	bin := edgedBinary(b)
	var one, perTag time.Duration
	refusals := 0
	for b.Loop() {
		for _, each := range []bool{false, true} {
			rows, err := soak(churnSite(each), bin, b.TempDir(), io.Discard, func(dayRow) {})
			if err != nil {
				b.Fatal(err)
			}
			_, refused, _, cpu := churnTotals(rows)
			refusals += refused
			if each {
				perTag += cpu
			} else {
				one += cpu
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(one.Seconds()/n, "one-topic-cpu-s")
	b.ReportMetric(perTag.Seconds()/n, "per-tag-cpu-s")
	b.ReportMetric(perTag.Seconds()/one.Seconds(), "per-tag/one-topic")
	b.ReportMetric(float64(refusals)/(2*n), "refused/replay")
}
