package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// replayCase is one randomized replay checked against the batch oracle.
type replayCase struct {
	name     string
	seed     uint64
	window   string // the window's type-specific YAML
	bound    time.Duration
	lateness time.Duration
	idle     time.Duration // idle_timeout; 0 = never idle
	idleMode string
	silent   int // keys that stop halfway
}

var replayCases = []replayCase{
	{name: "tumbling, tight bound, no lateness", seed: 1, window: "type: tumbling\n    size: 1s", bound: 50 * time.Millisecond},
	{name: "tumbling with allowed lateness and idle sensors", seed: 2, window: "type: tumbling\n    size: 1s", bound: 200 * time.Millisecond,
		lateness: 800 * time.Millisecond, idle: 400 * time.Millisecond, idleMode: "advance", silent: 3},
	{name: "sliding with lateness", seed: 3, window: "type: sliding\n    size: 2s\n    slide: 500ms", bound: 100 * time.Millisecond,
		lateness: 200 * time.Millisecond, idle: time.Second, idleMode: "hold", silent: 1},
	{name: "session windows with lateness and idle sensors", seed: 4, window: "type: session\n    gap: 300ms", bound: 100 * time.Millisecond,
		lateness: 400 * time.Millisecond, idle: 500 * time.Millisecond, idleMode: "advance", silent: 2},
	{name: "session windows, no lateness", seed: 5, window: "type: session\n    gap: 250ms", bound: 250 * time.Millisecond},
}

const replayAggregates = "[count, sum(temp), avg(temp), min(temp), max(temp), p95(temp)]"

func TestReplayEqualsTheOracleOnRandomizedStreams(t *testing.T) {
	t.Parallel()
	for _, c := range replayCases {
		t.Run(c.name, func(t *testing.T) {
			t.Logf("seed %d", c.seed)
			cfg := replayConfig(t, c)
			events, input := replayInput(c)
			out := replayRun(t, cfg, input, true, "")
			results, late, marks := replayParse(t, out)
			win := cfg.Devices[0].Windows[0].Operator()
			replayCheckLate(t, c, events, late)
			final := replayFinal(t, win.Assigner.Merging(), results)
			accepted, sessions := replaySimulate(t, c, win, events, marks, late, final)
			t.Logf("%d events, %d late, %d results", len(events), len(late), len(results))
			if len(late) == 0 || len(late) == len(events) {
				t.Errorf("%d of %d records late: the case exercises nothing", len(late), len(events))
			}
			replayCheckResults(t, win, accepted, final, sessions)
		})
	}
}

func TestReplayOutputIsByteIdenticalAcrossRuns(t *testing.T) {
	t.Parallel()
	c := replayCases[1]
	cfg := replayConfig(t, c)
	_, input := replayInput(c)
	for _, tc := range []struct {
		name       string
		watermarks bool
		second     string // data dir of the second run: "" memory, else process durability on disk
	}{
		{"results only", false, ""},
		{"with watermarks", true, ""},
		{"in memory and on disk", true, t.TempDir()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := replayRun(t, cfg, input, tc.watermarks, "")
			second := replayRun(t, cfg, input, tc.watermarks, tc.second)
			if !bytes.Equal(first, second) {
				t.Fatalf("two replays of the same input differ:\n%s", replayFirstDiff(first, second))
			}
			if tc.watermarks && !bytes.Contains(first, []byte(`{"watermark":`)) {
				t.Errorf("--watermarks output has no watermark lines")
			}
		})
	}
}

// replayEvent is one generated record with its arrival time and unique number.
type replayEvent struct {
	oracle.Event
	at int64
	n  int
	wm int64 // the watermark of its key when it was applied (replaySimulate)
}

// replayInput generates the case's stream: oracle events that arrive at the
// running maximum of their event times, a quiet spell halfway (longer than any
// idle timeout) and some keys silent after it. It returns the events and the
// replay input in arrival order.
func replayInput(c replayCase) ([]replayEvent, []byte) {
	const base = 1_733_140_000_000
	gen := oracle.Generate(oracle.Config{
		Seed: c.seed, Keys: 8, Events: 3000, Start: base, Step: 15,
		Disorder: 300, LateFraction: 0.05, LateBy: 2000,
		Fields: []oracle.Field{{Kind: windows.Number, Min: 10, Max: 30}},
	})
	var (
		events []replayEvent
		buf    bytes.Buffer
		at     int64 = base
		shift  int64
	)
	for i, e := range gen {
		if i == len(gen)/2 {
			shift = 3000
		}
		var k int
		fmt.Sscanf(e.Key, "k%d", &k)
		if i >= len(gen)/2 && k >= 8-c.silent {
			continue
		}
		e.TS += shift
		at = max(at, e.TS)
		re := replayEvent{Event: e, at: at, n: i}
		events = append(events, re)
		fmt.Fprintf(&buf, `{"at":%d,"topic":"sensors/%s/data","payload":{"sensor":%q,"ts":%d,"temp":%v,"n":%d}}`+"\n",
			at, e.Key, e.Key, e.TS, e.Values[0].Num, i)
	}
	return events, buf.Bytes()
}

func replayConfig(t *testing.T, c replayCase) *configs.Daemon {
	t.Helper()
	wm := fmt.Sprintf("{strategy: bounded, max_out_of_orderness: %dms, interval: 50ms, idle_timeout: %dms",
		c.bound.Milliseconds(), c.idle.Milliseconds())
	if c.idleMode != "" {
		wm += ", idle_mode: " + c.idleMode
	}
	path := harness.WriteConfig(t, "durability: memory\ncommit_interval: 50ms\n", map[string]string{"dev.yaml": `
device: dev
streams:
  - name: s
    topic: sensors/+/data
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: ` + wm + `}
windows:
  - name: w
    stream: s
    ` + c.window + `
    allowed_lateness: ` + fmt.Sprintf("%dms", c.lateness.Milliseconds()) + `
    aggregates: ` + replayAggregates + `
    output: {topic: "out/{key}"}
`})
	cfg, err := configs.Load(path)
	if err != nil {
		t.Fatalf("loading the replay config: %v", err)
	}
	return cfg
}

func replayRun(t *testing.T, cfg *configs.Daemon, input []byte, watermarks bool, dataDir string) []byte {
	t.Helper()
	var out bytes.Buffer
	_, err := actors.Replay(actors.ReplayOptions{
		Config: cfg, Input: bytes.NewReader(input), Output: &out, Watermarks: watermarks,
		DataDir: dataDir, Durability: persist.Process,
	})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return out.Bytes()
}

// replayLate is the part of a late record the checks need.
type replayLate struct {
	Key        string `json:"key"`
	Stream     string `json:"stream"`
	TS         int64  `json:"ts"`
	Watermark  int64  `json:"watermark"`
	ReceivedAt int64  `json:"received_at"`
	Payload    struct {
		N int `json:"n"`
	} `json:"payload"`
}

// replayMark is a watermark change replay reported for a stream.
type replayMark struct {
	Stream    string `json:"stream"`
	Watermark *int64 `json:"watermark"`
	At        int64  `json:"at"`
}

// replayParse splits replay output into results, the numbers of the records
// reported late and the watermark changes of each stream.
func replayParse(t *testing.T, out []byte) ([]harness.Result, map[int]bool, map[string][]replayMark) {
	t.Helper()
	var results []harness.Result
	late := map[int]bool{}
	marks := map[string][]replayMark{}
	for i, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		switch {
		case len(line) == 0:
		case bytes.HasPrefix(line, []byte(`{"late":`)):
			var l struct{ Late replayLate }
			if err := json.Unmarshal(line, &l); err != nil {
				t.Fatalf("output line %d %s: %v", i+1, line, err)
			}
			late[l.Late.Payload.N] = true
		case bytes.HasPrefix(line, []byte(`{"watermark":`)):
			var w struct{ Watermark replayMark }
			if err := json.Unmarshal(line, &w); err != nil {
				t.Fatalf("output line %d %s: %v", i+1, line, err)
			}
			// The end of input moves every stream to +inf after its last record.
			if w.Watermark.Watermark != nil && *w.Watermark.Watermark != math.MaxInt64 {
				marks[w.Watermark.Stream] = append(marks[w.Watermark.Stream], w.Watermark)
			}
		default:
			r, err := harness.ParseResult(line)
			if err != nil {
				t.Fatalf("output line %d: %v", i+1, err)
			}
			results = append(results, r)
		}
	}
	return results, late, marks
}

// replaySimulate works out the watermark each record met (its key has one
// stream, so the key's watermark is the stream's: the highest of the changes
// replay reported up to the record's arrival and of what the record itself
// justifies) and runs the oracle's simulation of the lateness rules per key
// with it. The records the simulation sends to the late output must be
// exactly those replay reported late; it returns the accepted ones and, for
// session windows, the members each final session had in the simulation just
// before it was purged (or at the end).
func replaySimulate(t *testing.T, c replayCase, op windows.OperatorConfig, events []replayEvent,
	marks map[string][]replayMark, late map[int]bool, final []harness.Result) ([]replayEvent, map[windows.Ref][]oracle.Event) {
	t.Helper()
	type keyState struct {
		sim      *oracle.Sim
		wm       int64
		marks    []replayMark
		sessions []windows.Ref
	}
	keys := map[string]*keyState{}
	members := map[windows.Ref][]oracle.Event{}
	// A record reports the watermark it carries to its window actors; the model
	// below derives that from the records themselves, and such a line must not be
	// applied to the records before it that arrived at the same time.
	type carried struct {
		key    string
		at, wm int64
	}
	byRecord := map[carried]bool{}
	for _, e := range events {
		byRecord[carried{e.Key, e.at, e.TS - c.bound.Milliseconds() - 1}] = true
	}
	snapshot := func(k *keyState) {
		for _, ref := range k.sessions {
			if m := k.sim.Members(ref); m != nil {
				members[ref] = m
			}
		}
	}
	var accepted []replayEvent
	for _, e := range events {
		k := keys[e.Key]
		if k == nil {
			k = &keyState{sim: oracle.NewSim(op.Assigner, op.AllowedLateness), wm: math.MinInt64,
				marks: marks["sensors/"+e.Key+"/data"]}
			if op.Assigner.Merging() {
				for _, r := range final {
					if r.Key == e.Key {
						k.sessions = append(k.sessions, windows.Ref{Key: r.Key, Window: windows.Window{Start: r.Start, End: r.End}})
					}
				}
			}
			keys[e.Key] = k
		}
		snapshot(k)
		for len(k.marks) > 0 && k.marks[0].At <= e.at {
			if !byRecord[carried{e.Key, k.marks[0].At, *k.marks[0].Watermark}] {
				k.wm = max(k.wm, *k.marks[0].Watermark)
			}
			k.marks = k.marks[1:]
		}
		k.wm = max(k.wm, e.TS-c.bound.Milliseconds()-1)
		e.wm = k.wm
		k.sim.Advance(k.wm)
		switch v := k.sim.Offer(e.Event); {
		case v == windows.Applied && !late[e.n]:
			accepted = append(accepted, e)
		case v == windows.LateOutput && late[e.n]:
		default:
			t.Errorf("record %d (key %s, ts %d, at %d, watermark %d): the oracle says %v, replay reported it late: %v",
				e.n, e.Key, e.TS, e.at, k.wm, v, late[e.n])
		}
	}
	for _, k := range keys {
		snapshot(k)
	}
	return accepted, members
}

// replayCheckLate checks that every record reported late was: its windows were
// past cleanup (ts + lateness <= watermark) under a watermark no higher than the
// stream's records so far allow (max - bound - 1, plus processing time elapsed
// since that max arrived, which advance-mode idleness extrapolates).
func replayCheckLate(t *testing.T, c replayCase, events []replayEvent, late map[int]bool) {
	t.Helper()
	type stream struct{ max, maxAt int64 }
	streams := map[string]*stream{}
	for _, e := range events {
		s := streams[e.Key]
		if s == nil {
			s = &stream{max: math.MinInt64}
			streams[e.Key] = s
		}
		if late[e.n] {
			if s.max == math.MinInt64 {
				t.Errorf("record %d (key %s, ts %d) reported late before its stream had a watermark", e.n, e.Key, e.TS)
			}
			if c.lateness.Milliseconds()+e.TS > s.max-c.bound.Milliseconds()-1+(e.at-s.maxAt) {
				t.Errorf("record %d (key %s, ts %d, at %d) reported late, but no watermark its stream allows (max %d at %d, bound %s) reaches ts + lateness",
					e.n, e.Key, e.TS, e.at, s.max, s.maxAt, c.bound)
			}
		}
		if e.TS > s.max {
			s.max, s.maxAt = e.TS, e.at
		}
	}
}

// replayCheckResults checks every window's final result against the oracle's
// recomputation over the records the window holds, and that every accepted
// record is in the windows it should be. A tumbling or sliding window holds
// the accepted records of its key inside it that arrived before its cleanup
// time; a session holds the members the simulation gave it.
func replayCheckResults(t *testing.T, op windows.OperatorConfig, accepted []replayEvent, final []harness.Result,
	sessions map[windows.Ref][]oracle.Event) {
	t.Helper()
	merging := op.Assigner.Merging()
	byKey := map[string][]replayEvent{}
	for _, e := range accepted {
		byKey[e.Key] = append(byKey[e.Key], e)
	}
	holds := func(e replayEvent, w windows.Window) bool {
		return e.TS >= w.Start && e.TS < w.End && e.wm < w.End-1+op.AllowedLateness
	}
	placed := map[replayEventID]int{} // record -> final windows holding it
	for _, r := range final {
		ref := windows.Ref{Key: r.Key, Window: windows.Window{Start: r.Start, End: r.End}}
		var members []oracle.Event
		if merging {
			members = sessions[ref]
			for _, e := range members {
				placed[replayEventID{e.Key, e.TS, e.Values[0].Num}]++
			}
		} else {
			for _, e := range byKey[r.Key] {
				if holds(e, ref.Window) {
					members = append(members, e.Event)
					placed[replayEventID{e.Key, e.TS, e.Values[0].Num}]++
				}
			}
		}
		want, ok := oracle.Compute(op.Assigner, op.Aggregates, members)[ref]
		if !ok {
			t.Errorf("window %+v: the oracle finds no such window over its %d records", ref, len(members))
			continue
		}
		if err := oracle.Equal(replayValues(r, op.Aggregates), want, op.Aggregates); err != nil {
			t.Errorf("window %+v revision %d: %v", ref, r.Revision, err)
		}
	}
	for _, e := range accepted {
		want := 1
		if !merging {
			want = 0
			for _, w := range op.Assigner.Assign(e.TS, nil) {
				if holds(e, w) {
					want++
				}
			}
		}
		if got := placed[replayEventID{e.Key, e.TS, e.Values[0].Num}]; got < want {
			t.Errorf("record %d (key %s, ts %d) is in %d reported windows, want %d", e.n, e.Key, e.TS, got, want)
		}
	}
}

// replayEventID identifies a record well enough to count where it landed; two
// records that share it are counted together, hence the check for at least.
type replayEventID struct {
	key  string
	ts   int64
	temp float64
}

// replayFinal returns the result an upserting store ends with for each window.
// Revisions of a window must count up from 0 in emission order; only
// revision 0 may be on time (a window first created by a late record fires
// as a late update at revision 0).
func replayFinal(t *testing.T, merging bool, results []harness.Result) []harness.Result {
	t.Helper()
	last := map[harness.ID]harness.Result{}
	var order []harness.ID
	for _, r := range results {
		prev, seen := last[r.ID()]
		if !seen {
			order = append(order, r.ID())
		}
		if r.Kind == "on_time" && r.Revision != 0 && !merging {
			t.Errorf("result %+v: revision %d is on time", r.ID(), r.Revision)
		}
		if !merging && (!seen && r.Revision != 0 || seen && r.Revision != prev.Revision+1) {
			t.Errorf("window %+v: revision %d follows %d", r.ID(), r.Revision, prev.Revision)
		}
		last[r.ID()] = r
	}
	var out []harness.Result
	for _, id := range order {
		r := last[id]
		superseded := false
		for _, o := range last {
			if merging && o.Key == r.Key && o.Start <= r.Start && o.End >= r.End && (o.Start != r.Start || o.End != r.End) {
				superseded = true
			}
		}
		if !superseded {
			out = append(out, r)
		}
	}
	return out
}

func replayValues(r harness.Result, aggs *windows.Aggregates) []windows.NamedValue {
	out := make([]windows.NamedValue, 0, len(aggs.Names()))
	for _, n := range aggs.Names() {
		v := math.NaN()
		if p := r.Values[n]; p != nil {
			v = *p
		}
		out = append(out, windows.NamedValue{Name: n, Value: v})
	}
	return out
}

func replayFirstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n%s\n%s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines and %d lines", len(la), len(lb))
}

// TestASecondReplayIntoTheSameDataDirRepublishesNothing: the first replay's
// results were confirmed before it closed its state, so a second replay into
// the same --data dir does not publish them again. (Its own records meet the
// +inf watermark the first replay ended with, so they are all late.)
func TestASecondReplayIntoTheSameDataDirRepublishesNothing(t *testing.T) {
	t.Parallel()
	c := replayCases[0]
	cfg := replayConfig(t, c)
	_, input := replayInput(c)
	dir := t.TempDir()
	first, _, _ := replayParse(t, replayRun(t, cfg, input, false, dir))
	second, late, _ := replayParse(t, replayRun(t, cfg, input, false, dir))
	if len(first) == 0 || len(second) != 0 {
		t.Errorf("first replay: %d results, second: %d results (want none)", len(first), len(second))
	}
	if len(late) == 0 {
		t.Errorf("the second replay reported no late records")
	}
}
