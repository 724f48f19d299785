package actors

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// published hands each publish to a channel.
type published chan string

func (p published) Publish(_ string, _ byte, payload []byte, done func(error)) {
	p <- string(payload)
	done(nil)
}

// countPerSecond counts each key's readings in 1 s windows, keyed by the topic.
const countPerSecond = `device: d
streams:
  - name: s
    topic: s/+
    qos: 1
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 0s}
windows:
  - {name: w, stream: s, type: tumbling, size: 1s, aggregates: [count]}
`

// A result is committed and published as soon as its window fires, not at the next
// commit interval: here the interval is an hour and no tick ever comes.
func TestAResultCommitsWithoutWaitingForTheCommitInterval(t *testing.T) {
	topo, _, pub := resultTopology(t, countPerSecond)

	const t0 int64 = 1733140000000
	acked := make(chan struct{}, 2)
	for _, ts := range []int64{t0 + 100, t0 + 1100} { // the second moves the watermark past [t0, t0+1s)
		topo.router.route(&Inbound{Topic: "s/k", Payload: fmt.Appendf(nil, `{"ts":%d}`, ts), QoS: 1, At: 1}, func() { acked <- struct{}{} })
	}
	select {
	case got := <-pub:
		if !strings.Contains(got, fmt.Sprintf(`"start":%d,`, t0)) || !strings.Contains(got, `"count":1`) {
			t.Fatalf("published %s, want the window at %d with count 1", got, t0)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no result published: it waits for the commit interval")
	}
	// Published after its commit: the records that produced it are acknowledged.
	for range 2 {
		select {
		case <-acked:
		case <-time.After(10 * time.Second):
			t.Fatal("a record of the published result is not acknowledged: its commit did not happen")
		}
	}
}

// The results of windows that fire close together wait resultGather for each other
// and share one commit, rather than a commit each.
func TestResultsFiringTogetherShareOneCommit(t *testing.T) {
	topo, _, pub := resultTopology(t, countPerSecond)
	topo.env.resultGather = time.Second // every firing below comes within it, however slow the machine
	commits := testutil.ToFloat64(topo.env.metrics.Commits)

	const t0 int64 = 1733140000000
	keys := []string{"a", "b", "c"}
	for _, ts := range []int64{t0 + 100, t0 + 1100} { // the second moves each key's watermark past [t0, t0+1s)
		for _, k := range keys {
			topo.router.route(&Inbound{Topic: "s/" + k, Payload: fmt.Appendf(nil, `{"ts":%d}`, ts), QoS: 1, At: 1}, func() {})
		}
	}
	for range keys {
		select {
		case <-pub:
		case <-time.After(10 * time.Second):
			t.Fatal("a result was not published")
		}
	}
	if n := testutil.ToFloat64(topo.env.metrics.Commits) - commits; n != 1 {
		t.Errorf("%v commits for %d results firing together, want 1", n, len(keys))
	}
}
