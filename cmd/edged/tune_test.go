package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/watermark/tune"
)

const tuneDevice = `device: d
streams:
  - name: s
    topic: sensors/+/data
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark:
      max_out_of_orderness: 0s # no disorder expected
      interval: 50ms
windows:
  - name: w
    stream: s
    type: tumbling
    size: 1s
    aggregates: [count]
`

// tuneRecording is two sensors reporting every 100 ms with known delays:
// s-1 sends every tenth reading 250 ms behind its max, s-2 one reading 1 s
// behind. Pooled, 189 of 200 readings are in order.
func tuneRecording(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	base := int64(1733140000000)
	for i := range int64(100) {
		at := base + 100*i
		ts1, ts2 := at, at
		if i%10 == 1 {
			ts1 = at - 350 // max before is at-100, a second boundary in between
		}
		if i == 50 {
			ts2 = at - 1100
		}
		fmt.Fprintf(&b, "{\"at\":%d,\"topic\":\"sensors/s-1/data\",\"payload\":{\"ts\":%d}}\n", at, ts1)
		fmt.Fprintf(&b, "{\"at\":%d,\"topic\":\"sensors/s-2/data\",\"payload\":\"{\\\"ts\\\":%d}\"}\n", at, ts2)
		fmt.Fprintf(&b, "{\"at\":%d,\"topic\":\"other/x\",\"payload\":{\"ts\":1}}\n", at)
	}
	b.WriteString(`{"at":1733140010000,"stream":"sensors/s-1/data","watermark":1}` + "\n")
	path := filepath.Join(dir, "rec.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runTune(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errBuf bytes.Buffer
	code = dispatch(append([]string{"tune"}, args...), &out, &errBuf)
	return code, out.String(), errBuf.String()
}

// fields splits a table row on runs of spaces.
var spaces = regexp.MustCompile(`\s{2,}`)

func row(t *testing.T, out, first string) []string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if f := spaces.Split(strings.TrimSpace(l), -1); f[0] == first {
			return f
		}
	}
	t.Fatalf("no row %q in\n%s", first, out)
	return nil
}

func TestTuneTablesTheDelaysAndRecommendsTheBoundForTheTarget(t *testing.T) {
	dir := plWriteTree(t, map[string]string{"edged.yaml": "broker: {url: tcp://127.0.0.1:1883}\n", "devices/d.yaml": tuneDevice})
	rec := tuneRecording(t, dir)
	code, out, stderr := runTune(t, "--config", dir+"/edged.yaml", "--input", rec, "--target-late", "0.5%")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Log("\n" + out)
	for _, want := range [][]string{
		{"sensors/s-2/data", "100", "0s", "0s", "0s", "1s", "1s", "100ms"},
		{"sensors/s-1/data", "100", "0s", "0s", "250ms", "250ms", "250ms", "100ms"},
		{"all topics", "200", "0s", "0s", "250ms", "1s", "1s", "100ms"},
		{"0s", "11", "5.5000%", "0s", "configured"},
		{"250ms", "1", "0.5000%", "300ms", "recommended"},
		{"1s", "0", "0.0000%", "1s"},
	} {
		if got := row(t, out, want[0]); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("row %v, want %v", got, want)
		}
	}
	if want := "max_out_of_orderness 250ms (1 readings, 0.5000% late), idle_timeout 101ms"; !strings.Contains(out, want) {
		t.Errorf("no %q in the output", want)
	}
	if !strings.Contains(out, "2 topics, 200 readings, 0 refused by the skew guard, 0 undecodable") {
		t.Error("the counts line is wrong")
	}

	_, out, _ = runTune(t, "--config", dir+"/edged.yaml", "--input", rec, "--target-late", "0.1%", "--topics", "1")
	if !strings.Contains(out, "max_out_of_orderness 1s (0 readings") {
		t.Errorf("0.1%% of 200 readings allows none late, yet\n%s", out)
	}
	if strings.Contains(out, "sensors/s-1/data") || !strings.Contains(out, "sensors/s-2/data") {
		t.Errorf("--topics 1 shows other than the worst topic:\n%s", out)
	}
}

func TestTuneApplyWritesTheDeviceFileAndReplaysBoth(t *testing.T) {
	dir := plWriteTree(t, map[string]string{"edged.yaml": "broker: {url: tcp://127.0.0.1:1883}\n", "devices/d.yaml": tuneDevice})
	rec := tuneRecording(t, dir)
	out := filepath.Join(dir, "tuned.yaml")
	code, stdout, stderr := runTune(t, "--config", dir+"/edged.yaml", "--input", rec, "--target-late", "0.5%", "--apply", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Log("\n" + stdout)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"max_out_of_orderness: 250ms # set by edged tune (was 0s)",
		"idle_timeout: 101ms # set by edged tune (was 30s)",
		"interval: 50ms",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %q in the tuned file:\n%s", want, b)
		}
	}
	dev, err := configs.LoadDevice(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := dev.Streams[0].Watermark.MaxOutOfOrderness.Milliseconds(); got != 250 {
		t.Fatalf("tuned bound %d ms", got)
	}
	// Bound 0 fires the windows s-1's delayed readings belong to just before
	// they arrive; 250 ms leaves only s-2's 1 s straggler late.
	if got, want := row(t, stdout, "late records (side output)"), []string{"late records (side output)", "11", "1", "-10"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("late row %v, want %v", got, want)
	}
	if got := row(t, stdout, "firing delay P50"); len(got) != 4 {
		t.Errorf("firing delay row %v", got)
	}
}

func TestTuneRefusesWhatItCannotDo(t *testing.T) {
	dir := plWriteTree(t, map[string]string{
		"edged.yaml":     "broker: {url: tcp://127.0.0.1:1883}\n",
		"devices/d.yaml": tuneDevice,
		"devices/e.yaml": strings.Replace(tuneDevice, "device: d", "device: e", 1),
		"rec.jsonl":      "",
	})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--input", dir + "/rec.jsonl"}, "--config and --input are required"},
		{[]string{"--config", dir + "/edged.yaml", "--input", dir + "/rec.jsonl", "--target-late", "100%"}, "not a fraction"},
		{[]string{"--config", dir + "/edged.yaml", "--input", dir + "/rec.jsonl", "--apply", dir + "/x.yaml"}, "name its device with --device"},
		{[]string{"--config", dir + "/edged.yaml", "--input", dir + "/rec.jsonl", "--device", "nope"}, `no device "nope"`},
		{[]string{"--config", dir + "/edged.yaml", "--input", dir + "/rec.jsonl", "--device", "d", "--apply", dir + "/devices/d.yaml"}, "write it outside devices_dir"},
	}
	for _, c := range cases {
		code, _, stderr := runTune(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestParseFractionReadsPercentsAndFractionsExactly(t *testing.T) {
	for in, want := range map[string]tune.PPM{"0.1%": 1000, "0.001": 1000, "1%": 10_000, "0": 0, "0.0001%": 1, " 5% ": 50_000, "99.9999%": 999_999} {
		if got, err := parseFraction(in); err != nil || got != want {
			t.Errorf("parseFraction(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1%", "100%", "1", "NaN", "0.1%%"} {
		if _, err := parseFraction(in); err == nil {
			t.Errorf("parseFraction(%q) accepted", in)
		}
	}
}

func TestTunedDeviceFileWritesOnlyWhatTheStrategyTakes(t *testing.T) {
	src := `device: d
streams:
  - name: a # disordered, configured monotonous
    topic: a/+
    timestamp: {field: ts, unit: ms}
    watermark: {strategy: monotonous}
  - name: b
    topic: b/+
    timestamp: {field: ts, unit: ms}
    watermark: {strategy: monotonous}
  - name: c
    topic: c/+
    timestamp: {field: ts, unit: ms}
    watermark: {strategy: punctuated, field: wm}
  - name: e
    topic: e/+
    timestamp: {field: ts, unit: ms}
windows:
  - {name: w, stream: a, type: tumbling, size: 1s, aggregates: [count]}
`
	dev, err := configs.ParseDevice("d.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var streams []*tuned
	for _, s := range dev.Streams {
		streams = append(streams, &tuned{device: dev, stream: s})
	}
	recs := []tune.Recommendation{
		{Bound: 300, HasBound: true, IdleTimeout: 5000, HasIdleTimeout: true},
		{Bound: 0, HasBound: true, IdleTimeout: 6000, HasIdleTimeout: true},
		{Bound: 700, HasBound: true, IdleTimeout: 7000, HasIdleTimeout: true},
		{Bound: 800, HasBound: true},
	}
	out, err := tunedDeviceFile("d.yaml", []byte(src), streams, recs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := configs.ParseDevice("tuned.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	type wm struct {
		strategy      string
		bound, idleMS int64
	}
	want := []wm{{"bounded", 300, 5000}, {"monotonous", 0, 6000}, {"punctuated", 0, 7000}, {"bounded", 800, 30000}}
	for i, s := range got.Streams {
		g := wm{s.Watermark.Strategy, s.Watermark.MaxOutOfOrderness.Milliseconds(), s.Watermark.IdleTimeout.Milliseconds()}
		if g != want[i] {
			t.Errorf("stream %s: %+v, want %+v", s.Name, g, want[i])
		}
	}
	if !strings.Contains(string(out), "# disordered, configured monotonous") || !strings.Contains(string(out), "set by edged tune (was monotonous)") {
		t.Errorf("comments lost or change not marked:\n%s", out)
	}
}
