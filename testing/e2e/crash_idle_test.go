package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

// crashIdleDowntime is how long edged stays down after the kill: long enough that
// a restart that counted it would stand out from the startup.
const crashIdleDowntime = 2 * time.Second

// TestAnIdleStreamResumesAfterKillNineWhereItWasASecondBefore kills edged while a
// sensor's stream is idle and its watermark moves with the processing clock. Its
// state was saved when it went idle; after the restart it must resume from where
// it was at most a second before the kill (the device's uptime, saved every second,
// says how far it moved), not from where it went idle, and without counting the
// downtime, which would make the backlog the broker replays late.
func TestAnIdleStreamResumesAfterKillNineWhereItWasASecondBefore(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s, _, e := crashUp(t, bin, mq.URL(), "idle")
	pub := plPublish(t, mq.URL())
	pub.send(s.prefix+"/k0/data", fmt.Appendf(nil, `{"ts":%d,"v":1,"seq":0}`, int64(crashBaseTS)))
	pub.flush()
	wm := func() int64 { return int64(e.metric("edged_watermark_seconds") * 1000) }
	// Idle after 1 s of silence, then moving with the clock: 5 s of it.
	idleFrom := int64(crashBaseTS - crashBoundMS - 1)
	harness.Eventually(t, 30*time.Second, "the idle watermark to move 6 s", func() bool {
		return wm() >= idleFrom+6_000
	})
	before, readAt := wm(), time.Now()
	e.kill()
	killedAt := time.Now()
	time.Sleep(crashIdleDowntime) // the scenario: edged is down this long, not a wait for a condition
	startAt := time.Now()
	e.start()
	var got int64
	harness.Eventually(t, 30*time.Second, "the restored stream's watermark", func() bool {
		got = wm()
		return got > idleFrom
	})
	sinceStart := time.Since(startAt).Milliseconds()
	// After its restore at some time between startAt and now, the watermark moved
	// with the clock from the one restored, so the one restored is at least
	// got-sinceStart and at most got.
	restoredMin := got - sinceStart
	if floor := before - 1_000 - 500; restoredMin < floor {
		t.Errorf("restored the watermark at %d or less, more than a second (and 500 ms of slack) behind %d, read before the kill (it went idle at %d)",
			restoredMin, before, idleFrom)
	}
	// Moved on while down, it would be at least before + the downtime.
	if ceiling := before + killedAt.Sub(readAt).Milliseconds() + sinceStart + 500; got > ceiling {
		t.Errorf("%d ms after the restart the watermark is %d, above %d: the %s downtime was counted", sinceStart, got, ceiling, crashIdleDowntime)
	}
}
