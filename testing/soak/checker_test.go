package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/sim"
	"github.com/edged/edged/testing/harness"
)

// TestTheCheckerFindsWrongMissingAndUnexpectedOutput feeds the checker a
// made-up replay output: one window right, one wrong, one missing, one the
// oracle has no readings for, and a late record for a reading it applies.
func TestTheCheckerFindsWrongMissingAndUnexpectedOutput(t *testing.T) {
	path := harness.WriteConfig(t, "durability: memory\n", map[string]string{"site.yaml": `device: site
streams:
  - name: tags
    topic: tags/+
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {max_out_of_orderness: 1s}
windows:
  - name: minute
    stream: tags
    type: tumbling
    size: 1m
    aggregates: [count, max(rssi)]
`})
	cfg, err := configs.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	chk, err := newChecker(cfg.Devices[0], &log)
	if err != nil {
		t.Fatal(err)
	}
	const t0 int64 = soakStart
	for i, r := range []struct {
		key string
		ts  int64
	}{{"a", t0}, {"a", t0 + 10_000}, {"b", t0 + 5000}, {"d", t0 + 7000}} {
		payload := fmt.Sprintf(`{"tag":%q,"ts":%d,"rssi":%d}`, r.key, r.ts, -50-i)
		m := sim.Message{At: r.ts, TS: r.ts, Topic: "tags/" + r.key, Payload: []byte(payload)}
		if err := chk.offer(&reading{Message: m, stream: tagStream, key: r.key}); err != nil {
			t.Fatal(err)
		}
	}
	result := func(key string, count, max int) string {
		return fmt.Sprintf(`{"device":"site","window":"minute","key":%q,"start":%d,"end":%d,"revision":0,"kind":"on_time","values":{"count":%d,"max_rssi":%d}}`,
			key, t0, t0+60_000, count, max)
	}
	output := strings.Join([]string{
		result("a", 2, -50),
		result("b", 2, -52), // one reading, not two
		result("c", 1, -60), // no reading of c
		`{"late":{"device":"site","stream":"tags/d","window":"minute","key":"d","reason":"too_late","ts":` + fmt.Sprint(t0+7000) + `}}`,
	}, "\n") + "\n"
	out := filepath.Join(t.TempDir(), "output.jsonl")
	if err := os.WriteFile(out, []byte(output), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chk.readOutput(out); err != nil {
		t.Fatal(err)
	}
	chk.settle(math.MaxInt64)
	day := chk.endDay(0)
	for _, want := range []string{"b ", "c ", "d ", "late output"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not mention %q:\n%s", want, log.String())
		}
	}
	// b wrong, c unexpected, d in the late output and so missing its window.
	if day.mismatches != 4 || day.settled != 3 || chk.open() != 0 {
		t.Errorf("%d mismatches over %d windows checked (%d open), want 4 over 3, none open:\n%s", day.mismatches, day.settled, chk.open(), log.String())
	}
}
