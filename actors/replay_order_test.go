package actors

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// Replay output follows the order in which things happened, not the group commit:
// key b's window fires (at 30 ms) before key a's (at 60 ms), both inside one 100 ms
// commit interval, and each watermark trace line precedes the firing it causes.
func TestReplayOutputFollowsFiringOrder(t *testing.T) {
	cfg := replayConfig(t, supervisionDevice) // commit every 100 ms, 1 s tumbling windows, key per topic
	const t0 int64 = 1_733_140_000_000
	var in strings.Builder
	for _, l := range []struct {
		at  int64
		key string
		ts  int64
	}{{0, "a", t0 + 100}, {0, "b", t0 + 100}, {30, "b", t0 + 1_500}, {60, "a", t0 + 1_500}} {
		fmt.Fprintf(&in, `{"at":%d,"topic":"t/%s","payload":{"ts":%d,"v":1}}`+"\n", l.at, l.key, l.ts)
	}
	var out bytes.Buffer
	if _, err := Replay(ReplayOptions{Config: cfg, Input: strings.NewReader(in.String()), Output: &out, Watermarks: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	find := func(parts ...string) int {
		for i, l := range lines {
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(l, p)
			}
			if ok {
				return i
			}
		}
		t.Fatalf("no line with %q in\n%s", parts, out.String())
		return -1
	}
	first := fmt.Sprintf(`"start":%d`, t0)
	wm := fmt.Sprintf(`"watermark":%d,"idle"`, t0+1_499)
	traceB, resultB := find(`"stream":"t/b"`, wm), find(`"key":"b"`, first)
	traceA, resultA := find(`"stream":"t/a"`, wm), find(`"key":"a"`, first)
	if !(traceB < resultB && resultB < traceA && traceA < resultA) {
		t.Errorf("trace b at %d, result b at %d, trace a at %d, result a at %d; want them in that order:\n%s",
			traceB, resultB, traceA, resultA, out.String())
	}
}
