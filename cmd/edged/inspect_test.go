package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// inspectFixture writes the state a daemon would have written for device "dev":
// one stream, one window definition, key "s-1" with one window holding 2 records,
// one outbox entry.
func inspectFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	store, err := persist.Open(persist.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	aggs, err := windows.ParseAggregates([]string{"count", "avg(temp)"})
	if err != nil {
		t.Fatal(err)
	}
	op := windows.NewOperator(windows.OperatorConfig{Assigner: windows.Tumbling(60_000, 0), Aggregates: aggs})
	var out windows.Output
	for _, v := range []float64{20, 22} {
		op.OnRecord("s-1", windows.Record{TS: 61_000, Values: []windows.Value{windows.NumberValue(v)}}, &out)
	}
	win := windows.Window{Start: 60_000, End: 120_000}
	state, _ := op.AppendState(binary.AppendVarint(nil, win.End), "s-1", win)

	b := store.NewBatch()
	b.PutWindowDef("dev", "1m", []byte(`{"type":"tumbling","size_ms":60000,"slide_ms":0,"gap_ms":0,"offset_ms":0,"aggregates":["count","avg(temp)"]}`))
	b.PutStream("dev", "sensors/s-1/data", watermark.GeneratorState{Max: 61_000, LastArrival: 5, Watermark: 59_999, Seen: true})
	b.PutValve("dev", "1m", "s-1", 59_999, []watermark.ValveInput{{Input: "sensors/s-1/data", Watermark: 59_999, Aligned: true}})
	b.PutWindow(persist.WindowKey{Device: "dev", Window: "1m", Key: "s-1", Start: win.Start}, state)
	b.Enqueue("res/dev", []byte("result"))
	if err := store.Commit(b); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestInspectShowsPersistedState(t *testing.T) {
	dir := inspectFixture(t)
	tests := []struct {
		name string
		args []string
		want []string
		not  []string
	}{
		{
			name: "the summary lists streams, windows, open windows and outboxes",
			args: []string{"--data", dir},
			want: []string{
				"device dev",
				"sensors/s-1/data  watermark 59999  max event time 61000  idle false",
				"windows: 1 definitions, 1 open windows",
				"1m  (tumbling size 60000ms, count, avg(temp))  keys 1  open windows 1",
				"outbox res/dev: 1 records, 6 bytes",
				"outbox up/dev: 0 records",
			},
			not: []string{"key "},
		},
		{
			name: "a key shows its valve and decoded accumulators",
			args: []string{"--data", dir, "--key", "s-1"},
			want: []string{
				`key "s-1" in window 1m`,
				"input sensors/s-1/data  watermark 59999  idle false",
				"window [60000, 120000)  results so far 0  count=2 avg_temp=21",
			},
		},
		{
			name: "an unknown key says it has no state",
			args: []string{"--data", dir, "--key", "nope"},
			want: []string{`key "nope": no state in device dev`},
		},
		{
			name: "another device has nothing",
			args: []string{"--data", dir, "--device", "other"},
			want: []string{"device other", "streams: 0", "windows: 0 definitions, 0 open windows"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := dispatch(append([]string{"inspect"}, tt.args...), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(stdout.String(), n) {
					t.Errorf("output has %q:\n%s", n, stdout.String())
				}
			}
		})
	}
}

func TestInspectRefusesADirectoryEdgedHolds(t *testing.T) {
	dir := t.TempDir()
	held, err := persist.Open(persist.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"inspect", "--data", dir}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, w := range []string{dir, "another edged holds it"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("error lacks %q: %s", w, stderr.String())
		}
	}
}

func TestInspectOfADirectoryWithoutStateCreatesNothing(t *testing.T) {
	parent := t.TempDir()
	for _, dir := range []string{parent + "/typo", parent} {
		var stdout, stderr bytes.Buffer
		if code := dispatch([]string{"inspect", "--data", dir}, &stdout, &stderr); code == 0 {
			t.Errorf("inspect --data %s exited 0:\n%s", dir, stdout.String())
		}
		if !strings.Contains(stderr.String(), "holds no edged state") {
			t.Errorf("inspect --data %s: stderr lacks the reason:\n%s", dir, stderr.String())
		}
	}
	entries, err := os.ReadDir(parent)
	if err != nil || len(entries) != 0 {
		t.Errorf("inspect left %d entries in %s (%v)", len(entries), parent, err)
	}
}
