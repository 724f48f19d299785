package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

const explainBase = int64(1733140800000) // 2024-12-02T12:00:00Z

// explainFixture replays a fleet-wide window (key = site, fed by two
// sensors) into a data dir and leaves it open: s-1 reaches base+10 s, s-2
// only base+6 s, so s-2 holds the key back, [base, base+5 s) has fired and
// [base+5 s, base+10 s) waits.
func explainFixture(t *testing.T) (cfgPath, dataDir string) {
	t.Helper()
	dir := plWriteTree(t, map[string]string{
		"edged.yaml": "broker: {url: tcp://127.0.0.1:1883}\ndata_dir: state\n",
		"devices/fleet.yaml": `device: fleet
streams:
  - name: s
    topic: sensors/+/data
    timestamp: {field: ts, unit: ms}
    key: {field: site}
    watermark: {max_out_of_orderness: 500ms, idle_timeout: 30s}
windows:
  - name: w5
    stream: s
    type: tumbling
    size: 5s
    allowed_lateness: 2s
    aggregates: [count]
`,
	})
	var in strings.Builder
	for i := int64(0); i <= 10; i++ {
		ts := explainBase + i*1000
		fmt.Fprintf(&in, `{"at":%d,"topic":"sensors/s-1/data","payload":{"site":"A","ts":%d}}`+"\n", ts, ts)
		if i <= 6 {
			fmt.Fprintf(&in, `{"at":%d,"topic":"sensors/s-2/data","payload":{"site":"A","ts":%d}}`+"\n", ts, ts)
		}
	}
	cfg, err := configs.Load(filepath.Join(dir, "edged.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := actors.Replay(actors.ReplayOptions{Config: cfg, Input: strings.NewReader(in.String()), Output: &out, DataDir: cfg.DataDir, KeepOpen: true}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "edged.yaml"), cfg.DataDir
}

func runExplain(args ...string) (int, string, string) {
	var out, errBuf bytes.Buffer
	code := dispatch(append([]string{"explain"}, args...), &out, &errBuf)
	return code, out.String(), errBuf.String()
}

func digest(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestExplainSaysWhichStreamHoldsAWindowBackAndWhatFiresIt(t *testing.T) {
	cfg, data := explainFixture(t)
	before := digest(t, data)
	code, out, stderr := runExplain("--config", cfg, "--window", "w5", "--key", "A")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Log("\n" + out)
	for _, want := range []string{
		`window w5 of device fleet, key "A": tumbling 5s (count), allowed lateness 2s`,
		"combined watermark 2024-12-02T12:00:05.499Z (1733140805499): the lowest of its 2 active stream(s) (of 2 that fed this key)",
		"sensors/s-2/data: watermark 2024-12-02T12:00:05.499Z (1733140805499), active, max event time 2024-12-02T12:00:06.000Z (1733140806000)",
		"<- holds it back",
		"[2024-12-02T12:00:00.000Z (1733140800000), 2024-12-02T12:00:05.000Z (1733140805000)) fired: 1 result(s) so far (the on-time one and 0 late update(s)); now count=10",
		"until the combined watermark reaches 2024-12-02T12:00:06.999Z (1733140806999) (1.5s from now)",
		"[2024-12-02T12:00:05.000Z (1733140805000), 2024-12-02T12:00:10.000Z (1733140810000)) has not fired: it fires when the combined watermark reaches 2024-12-02T12:00:09.999Z (1733140809999), 4.5s of event time ahead of it now",
		"it waits for sensors/s-2/data and sensors/s-1/data: a reading from each with event time at or past 2024-12-02T12:00:10.500Z (1733140810500) (the window end plus max_out_of_orderness 500ms)",
		"or for 30s of silence from each (idle_timeout, counted from the restart)",
		"it waits for sensors/s-2/data and sensors/s-1/data: a reading from each with event time at or past 2024-12-02T12:00:15.500Z",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q", want)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "sensors/s-1/data:") && strings.Contains(l, "<-") {
			t.Errorf("s-1 is ahead, yet marked as holding the key back: %s", l)
		}
	}

	for _, c := range []struct{ at, want string }{
		{"1733140740000", "a reading for it now is too late and goes to the late output"},
		{"2024-12-02T12:00:20Z", "the key has no reading in it yet; it opens with the first and fires when the combined watermark reaches 2024-12-02T12:00:24.999Z"},
		{"1733140801000", "fired: 1 result(s)"},
	} {
		_, out, _ := runExplain("--config", cfg, "--window", "w5", "--key", "A", "--at", c.at)
		if !strings.Contains(out, c.want) || strings.Count(out, "\n[") != 1 {
			t.Errorf("--at %s: want one window and %q in\n%s", c.at, c.want, out)
		}
	}
	_, out, _ = runExplain("--data", data, "--window", "w5", "--key", "A")
	if !strings.Contains(out, "allowed lateness unknown (give --config)") || !strings.Contains(out, "(give --config for its bound and idle timeout)") {
		t.Errorf("without --config:\n%s", out)
	}
	_, out, _ = runExplain("--data", data, "--window", "w5", "--key", "B")
	if !strings.Contains(out, "no state for this key") {
		t.Errorf("unknown key:\n%s", out)
	}

	after := digest(t, data)
	if len(after) != len(before) {
		t.Fatalf("explain changed the data dir: %d files before, %d after", len(before), len(after))
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("explain changed %s", p)
		}
	}
}

func TestExplainRefusesARunningDaemonsDirAndUnknownWindows(t *testing.T) {
	cfg, data := explainFixture(t)
	code, _, stderr := runExplain("--config", cfg, "--window", "nope", "--key", "A")
	if code != 1 || !strings.Contains(stderr, `no window "nope" in the state in `+data) {
		t.Errorf("unknown window: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runExplain("--window", "w5"); code != 2 || !strings.Contains(stderr, "--window, --key and one of --data or --config are required") {
		t.Errorf("missing flags: exit %d, %s", code, stderr)
	}
	held, err := persist.Open(persist.Options{Dir: data})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, _, stderr = runExplain("--data", data, "--window", "w5", "--key", "A")
	if code != 1 || !strings.Contains(stderr, "another edged holds it; stop it first") {
		t.Errorf("held dir: exit %d, %s", code, stderr)
	}
}
