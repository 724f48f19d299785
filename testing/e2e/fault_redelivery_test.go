package e2e

import (
	"fmt"
	"os"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

// The fault suite: faults a gateway meets in its first year, each checked against
// the oracle with edged as a child process and a private Mosquitto.
//
//	go test ./testing/e2e -run 'Fault' -v

// A broker restart redelivers, flagged duplicate, every message edged has not
// acknowledged, including those it applied but has not committed yet. Such a
// redelivery is skipped, but acknowledging it makes the broker forget the message,
// so its ack must wait for the commit of the first copy: a crash before that commit
// must find the broker still holding the message.
func TestFaultRedeliveryOfAnUncommittedMessageWaitsForItsCommit(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := crashConfig(t, mq.URL(), faultPrefix("redelivery"))
	faultCommitInterval(t, s, "1h")  // commits stall: what edged applies stays in memory
	faultCommitOnResult(t, s, false) // firing windows do not commit either
	coll := crashCollect(t, s)
	e := crashStart(t, bin, s.config)

	const n = 5000
	events := crashEvents(21, n)
	var acked atomic.Int64
	if err := crashPublish(t, s, events, 0, n, &acked); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 30*time.Second, "every reading received and held unacknowledged", func() bool {
		return e.metric("edged_inflight_messages") == n
	})
	mq.Restart() // graceful: the broker keeps the session and redelivers every reading
	harness.Eventually(t, 30*time.Second, "every redelivery recognised as applied", func() bool {
		return e.metric("edged_duplicates_skipped_total") == n
	})
	t.Logf("%d redeliveries of uncommitted readings skipped; edged holds %v messages unacknowledged",
		n, e.metric("edged_inflight_messages"))
	e.kill()

	faultCommitInterval(t, s, "20ms")
	faultCommitOnResult(t, s, true)
	e.start()
	v := crashAwait(t, coll, events, false)
	results, _, _ := coll.snapshot()
	t.Logf("after the crash: %d windows expected, %d results, %d problems", v.windows, len(results), len(v.problems))
	crashReport(t, v)
}

// faultPrefix is a topic prefix no other test uses.
func faultPrefix(name string) string { return fmt.Sprintf("%s-%d", name, time.Now().UnixNano()) }

var faultCommitLine = regexp.MustCompile(`(?m)^commit_interval: .*$`)

// faultCommitInterval sets commit_interval in the daemon file of s; a running edged
// sees it at its next start.
func faultCommitInterval(t testing.TB, s crashSetup, d string) {
	t.Helper()
	b, err := os.ReadFile(s.config)
	if err != nil {
		t.Fatal(err)
	}
	crashWriteFile(t, s.config, faultCommitLine.ReplaceAllString(string(b), "commit_interval: "+d))
}

var faultCommitOnResultLine = regexp.MustCompile(`(?m)^commit_on_result: .*\n`)

// faultCommitOnResult sets commit_on_result in the daemon file of s; a running
// edged sees it at its next start.
func faultCommitOnResult(t testing.TB, s crashSetup, on bool) {
	t.Helper()
	b, err := os.ReadFile(s.config)
	if err != nil {
		t.Fatal(err)
	}
	text := faultCommitOnResultLine.ReplaceAllString(string(b), "")
	crashWriteFile(t, s.config, faultCommitLine.ReplaceAllStringFunc(text, func(line string) string {
		return fmt.Sprintf("%s\ncommit_on_result: %v", line, on)
	}))
}
