package actors

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"testing"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// replayConfig is a daemon config for replays of the device in yaml: 100 ms
// commits (replay lifts the intake limit itself).
func replayConfig(tb testing.TB, yaml string) *configs.Daemon {
	tb.Helper()
	dev, err := configs.ParseDevice("dev.yaml", []byte(yaml))
	if err != nil {
		tb.Fatal(err)
	}
	return &configs.Daemon{CommitInterval: 100_000_000, DedupTTL: 3600_000_000_000,
		Limits: configs.Limits{MaxInflight: 1000}, Devices: []*configs.Device{dev}}
}

func replayLines(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		for _, k := range []string{"a", "b"} {
			fmt.Fprintf(&b, `{"at":%d,"topic":"t/%s","payload":{"ts":%d,"v":%d}}`+"\n", 1000+i*100, k, 1_733_140_000_000+int64(i)*100, i)
		}
	}
	return b.String()
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(lines)
	return lines
}

func TestAReplayKeptOpenContinuesWhereItStopped(t *testing.T) {
	cfg := replayConfig(t, supervisionDevice)
	var whole bytes.Buffer
	if _, err := Replay(ReplayOptions{Config: cfg, Input: strings.NewReader(replayLines(0, 60)), Output: &whole}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var first, second bytes.Buffer
	if _, err := Replay(ReplayOptions{Config: cfg, Input: strings.NewReader(replayLines(0, 25)), Output: &first, DataDir: dir, KeepOpen: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := Replay(ReplayOptions{Config: cfg, Input: strings.NewReader(replayLines(25, 60)), Output: &second, DataDir: dir}); err != nil {
		t.Fatal(err)
	}
	// emitted_at differs (the second run's clock restarts), so compare without it.
	strip := func(s string) []string {
		var out []string
		for _, l := range sortedLines(s) {
			out = append(out, l[:strings.Index(l, `,"emitted_at"`)])
		}
		sort.Strings(out)
		return out
	}
	got, want := strip(first.String()+second.String()), strip(whole.String())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("two replays kept open in between gave\n%s\nwant (one replay)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(want) != 12 {
		t.Errorf("the whole replay gave %d results, want 6 windows x 2 keys", len(want))
	}
}

func TestAReplayFiring20000WindowsAtOnceCommitsEveryDelivery(t *testing.T) {
	// One flush fires every window and the replay's publisher confirms them all at
	// once: the deliveries to commit are far more than one Badger transaction holds.
	const keys = 20_000
	var in strings.Builder
	for i := range keys {
		fmt.Fprintf(&in, `{"at":1000,"topic":"t/k%d","payload":{"ts":%d,"v":1}}`+"\n", i, 1_733_140_000_000+int64(i%1000))
	}
	dir := t.TempDir()
	var logs bytes.Buffer
	stats, err := Replay(ReplayOptions{Config: replayConfig(t, supervisionDevice), Input: strings.NewReader(in.String()), Output: io.Discard,
		DataDir: dir, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Results != keys {
		t.Errorf("%d results, want %d", stats.Results, keys)
	}
	store, err := persist.Open(persist.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	left, err := store.Peek(commit.ResultsQueue("d"), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("published results are still in the outbox: their deliveries were not committed\n%s", logs.String())
	}
}
