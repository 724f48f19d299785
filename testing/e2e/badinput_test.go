package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

func plBadInputConfig(t *testing.T, url, clientID, filter, out string) string {
	t.Helper()
	return harness.WriteConfig(t, daemonYAML("memory", url, clientID)+"limits: {max_payload: 256B}\nmetrics: {per_topic: true}\n", map[string]string{"d.yaml": tumblingDevice{
		device: "d", stream: "sensors", topic: filter, qos: 1,
		watermark:  "{strategy: bounded, max_out_of_orderness: 100ms, interval: 20ms, idle_timeout: 300ms}",
		aggregates: "[count, sum(temp), avg(temp)]",
		output:     out + "/{key}",
	}.yaml()})
}

func TestBadInputIsCountedAndLoggedAndTheDaemonGoesOn(t *testing.T) {
	t.Parallel()
	const seed = 7
	t.Logf("seed %d", seed)
	mq := broker.Start(t)
	p := fmt.Sprintf("pl-bad-%d", time.Now().UnixNano())
	clientID := p + "-edged"

	// A previous run subscribed to a filter the config no longer has: its
	// persistent session keeps that subscription at the broker, so the broker
	// delivers topics that no stream matches any more.
	old := harness.Start(t, plBadInputConfig(t, mq.URL(), clientID, p+"/old/+", p+"/out"))
	if err := old.Stop(5 * time.Second); err != nil {
		t.Fatalf("stopping the first run: %v", err)
	}

	results := plCollect(t, mq.URL(), p+"/out/#", false)
	e := harness.Start(t, plBadInputConfig(t, mq.URL(), clientID, p+"/+/data", p+"/out"))
	pub := plPublish(t, mq.URL())
	good := oracle.Generate(oracle.Config{Seed: seed, Keys: 1, Events: 60, Start: plT0, Step: 50, Disorder: 80, Fields: plTemp})
	topic := p + "/a/data"
	send := func(from, to int) {
		for i := from; i < to; i++ {
			good[i].Key = "a"
			pub.send(topic, plReading{Sensor: "a", N: i, Event: good[i]}.payload())
		}
	}

	bad := []struct{ what, payload string }{
		// First, so the log line of the burst is the one with the hint.
		{"seconds where ms are configured", fmt.Sprintf(`{"ts":%d,"temp":20}`, plT0/1000+2)},
		{"not JSON", `temp=20 ts=now`},
		{"a JSON array", `[1733140002000, 20]`},
		{"no timestamp field", `{"temp":20}`},
		{"a timestamp that is a word", `{"ts":"yesterday","temp":20}`},
		{"a timestamp that is a boolean", `{"ts":true,"temp":20}`},
		{"a timestamp that is an object", `{"ts":{"ms":1733140002000},"temp":20}`},
		{"an empty payload", ``},
		{"a payload over limits.max_payload", fmt.Sprintf(`{"ts":%d,"temp":20,"note":"%s"}`, plT0+1500, strings.Repeat("x", 256))},
	}
	send(0, 30)
	for _, b := range bad {
		pub.send(topic, []byte(b.payload))
	}
	pub.send(p+"//data", []byte(`{"ts":1733140002000,"temp":20}`))   // no key in the topic segment
	pub.send(p+"/old/x", []byte(`{"ts":1733140002000,"temp":20}`))   // delivered, matches no stream
	pub.send(p+"/x/other", []byte(`{"ts":1733140002000,"temp":20}`)) // matches no subscription at all
	send(30, len(good))
	pub.flush()

	dev := map[string]string{"device": "d"}
	decodeErrors := func() int {
		return int(plMetric(t, e, "edged_decode_errors_total", map[string]string{"device": "d", "topic": topic}))
	}
	harness.Eventually(t, 15*time.Second, "every good reading in a result, every bad one counted, every message acknowledged", func() bool {
		return plCount(results.results(t), "d", "w") == len(good) && decodeErrors() == len(bad) &&
			plMetric(t, e, "edged_decode_errors_total", dev) == float64(len(bad)+1) &&
			plMetric(t, e, "edged_unmatched_total", nil) == 1 &&
			plMetric(t, e, "edged_inflight_messages", dev) == 0
	})

	aggs, err := windows.ParseAggregates([]string{"count", "sum(temp)", "avg(temp)"})
	if err != nil {
		t.Fatal(err)
	}
	plCheckAgainstOracle(t, results.results(t), "d", "w", 1000, aggs, good)
	if got := plMetric(t, e, "edged_records_in_total", dev); got != float64(len(good)) {
		t.Errorf("edged_records_in_total = %v, want %d: only the good readings", got, len(good))
	}
	if got := plMetric(t, e, "edged_late_total", map[string]string{"device": "d", "reason": "undecodable"}); got != float64(len(bad)+1) {
		t.Errorf("edged_late_total{reason=undecodable} = %v, want %d", got, len(bad)+1)
	}
	if got := plMetric(t, e, "edged_records_in_total", map[string]string{"topic": p + "/x/other"}); got != 0 {
		t.Errorf("a topic no subscription matches was processed: %v records in", got)
	}
	logs := e.Logs()
	for _, want := range []string{
		"undecodable payload",
		fmt.Sprintf("%d ms is before 2000-01-01T00:00:00Z (is the unit s?)", plT0/1000+2),
		"message on a topic no stream matches",
		"topic=" + p + "/old/x",
		"segment 1 of topic",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log does not say %q", want)
		}
	}
	if code := plHealth(e.HTTPAddr()); code != 200 {
		t.Errorf("/healthz = %d after bad input, want 200", code)
	}
}
