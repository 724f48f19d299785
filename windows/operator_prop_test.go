package windows_test

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// allAggregates exercises every aggregate function; field v is numeric, s a string.
var allAggregates = []string{
	"count", "sum(v)", "min(v)", "max(v)", "avg(v)", "first(v)", "last(v)",
	"variance(v)", "stddev(v)", "p50(v)", "p95(v)", "p999(v)", "distinct(s)", "distinct(v)",
}

var streamFields = []oracle.Field{
	{Kind: windows.Number, Min: -20, Max: 20, MissingFraction: 0.1},
	{Kind: windows.String, Cardinality: 12, MissingFraction: 0.1},
}

func drawAssigner(t *rapid.T) windows.Assigner {
	switch rapid.IntRange(0, 2).Draw(t, "window type") {
	case 0:
		return windows.Tumbling(rapid.Int64Range(1, 40).Draw(t, "size"), rapid.Int64Range(-40, 40).Draw(t, "offset"))
	case 1:
		slide := rapid.Int64Range(1, 20).Draw(t, "slide")
		return windows.Sliding(slide*rapid.Int64Range(1, 6).Draw(t, "size/slide"), slide, rapid.Int64Range(-20, 20).Draw(t, "offset"))
	default:
		return windows.Session(rapid.Int64Range(1, 30).Draw(t, "gap"))
	}
}

// TestOperatorMatchesTheOracle drives the operator, accumulating or
// discarding, with random out-of-order streams and a bounded-out-of-orderness
// watermark (maxTs - B - 1, advanced every few records), restoring it up to
// three times from what it said to persist (Output.Updated and Purged, as a
// window actor stores them). Every result must equal the oracle
// over the records accepted so far (discarding: those no earlier result of
// the window carried), every record must be applied, late or dropped exactly
// as the reference simulation says, and a downstream consumer must end with
// the oracle's final windows: a table applying the consumer rule
// (accumulating), or sums of deltas (discarding).
func TestOperatorMatchesTheOracle(t *testing.T) {
	aggs, err := windows.ParseAggregates(allAggregates)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(t *rapid.T) {
		asg := drawAssigner(t)
		cfg := oracle.Config{
			Seed:         rapid.Uint64().Draw(t, "seed"),
			Keys:         rapid.IntRange(1, 4).Draw(t, "keys"),
			Events:       rapid.IntRange(1, 200).Draw(t, "events"),
			Start:        rapid.Int64Range(-300, 300).Draw(t, "start"),
			Step:         rapid.Int64Range(0, 6).Draw(t, "step"),
			Disorder:     rapid.Int64Range(0, 60).Draw(t, "disorder"),
			LateFraction: rapid.Float64Range(0, 0.3).Draw(t, "late fraction"),
			LateBy:       rapid.Int64Range(1, 100).Draw(t, "late by"),
			Fields:       streamFields,
		}
		oracleCase{
			asg:      asg,
			aggs:     aggs,
			bound:    rapid.Int64Range(0, 40).Draw(t, "bound"),
			lateness: rapid.Int64Range(0, 50).Draw(t, "lateness"),
			every:    rapid.IntRange(1, 6).Draw(t, "advance every"),
			keys:     cfg.Keys,
			events:   oracle.Generate(cfg),
		}.run(t, nil)
	})
}

// TestLateReadingsThatBridgeSessionsMatchTheOracle is TestOperatorMatchesTheOracle
// for session windows on streams shaped to bridge them (drawBridgingEvents):
// short sessions with pauses between them, and late and resent readings near
// earlier ones, some of which bridge into a live session and move its start
// earlier, some onto the start of a session purged (or retracted) before, some
// further than the session's reach. In both accumulation modes the runs must
// have each kind, across restarts.
func TestLateReadingsThatBridgeSessionsMatchTheOracle(t *testing.T) {
	aggs, err := windows.ParseAggregates(allAggregates)
	if err != nil {
		t.Fatal(err)
	}
	var seen [2]bridgeCounts // accumulating, discarding
	rapid.Check(t, func(t *rapid.T) {
		gap := rapid.Int64Range(2, 20).Draw(t, "gap")
		keys := rapid.IntRange(1, 2).Draw(t, "keys")
		oracleCase{
			asg:      windows.Session(gap),
			aggs:     aggs,
			bound:    rapid.Int64Range(0, gap).Draw(t, "bound"),
			lateness: rapid.Int64Range(0, gap).Draw(t, "lateness"),
			every:    rapid.IntRange(1, 3).Draw(t, "advance every"),
			keys:     keys,
			events:   drawBridgingEvents(t, gap, keys),
		}.run(t, &seen)
	})
	for i, mode := range []string{"accumulating", "discarding"} {
		c := seen[i]
		t.Logf("%s: %d late readings moved a session's start, %d onto a lost session's start; %d would have gone below a session's reach",
			mode, c.bridged, c.revived, c.refused)
		if c.bridged == 0 || c.revived == 0 || c.refused == 0 {
			t.Errorf("%s: the runs lack late readings that move a session's start, revive a lost start or go below a reach", mode)
		}
	}
}

// drawBridgingEvents draws a stream of keys k0..k{keys-1} whose clock runs in
// steps of up to half a gap, pausing now and then for one to three gaps, with
// readings up to a gap out of order, readings near (up to a gap either side) or
// at the very time of one of the key's latest readings, and readings up to a gap
// before the earliest of the key's last three (chains, when late). Like
// oracle.Generate it draws from a seeded generator, so the kinds come in the
// proportions given rather than rapid's, which favour the first.
func drawBridgingEvents(t *rapid.T, gap int64, keys int) []oracle.Event {
	return bridgingEvents(rapid.Uint64().Draw(t, "seed"), rapid.IntRange(100, 400).Draw(t, "events"),
		rapid.Int64Range(-300, 300).Draw(t, "start"), gap, keys)
}

func bridgingEvents(seed uint64, n int, clock, gap int64, keys int) []oracle.Event {
	rng := rand.New(rand.NewPCG(seed, 0xb41d9e))
	recent := make([][]int64, keys)
	events := make([]oracle.Event, n)
	for i := range events {
		k := rng.IntN(keys)
		ts := clock - rng.Int64N(gap+1)
		switch kind := rng.IntN(10); {
		case kind < 5:
			clock += rng.Int64N(gap/2 + 1)
		case kind == 5:
			clock += gap + rng.Int64N(2*gap+1)
		case len(recent[k]) == 0:
		case kind == 6:
			ts = slices.Min(recent[k][max(0, len(recent[k])-3):]) - 1 - rng.Int64N(gap)
		case kind == 7:
			ts = recent[k][rng.IntN(len(recent[k]))] - gap + rng.Int64N(2*gap+1)
		default:
			ts = recent[k][rng.IntN(len(recent[k]))]
		}
		if recent[k] = append(recent[k], ts); len(recent[k]) > 8 {
			recent[k] = recent[k][1:]
		}
		events[i] = oracle.Event{Key: fmt.Sprintf("k%d", k), TS: ts, Values: []windows.Value{
			windows.NumberValue(float64(rng.IntN(161)-80) / 4),
			windows.StringValue(fmt.Sprintf("v%d", rng.IntN(6))),
		}}
	}
	return events
}

// oracleCase is one run of the operator against the oracle.
type oracleCase struct {
	asg             windows.Assigner
	aggs            *windows.Aggregates
	bound, lateness int64
	every           int // records between watermark advances
	keys            int
	events          []oracle.Event // keyed k0..k{keys-1}
}

// run draws the restarts, the accumulation mode and early firings, runs the
// case and adds its bridging records to seen, if not nil.
func (c oracleCase) run(t *rapid.T, seen *[2]bridgeCounts) {
	events := c.events
	restarts := rapid.SliceOfN(rapid.IntRange(0, len(events)), 0, 3).Draw(t, "restore at")
	discard := rapid.Bool().Draw(t, "discarding")
	early := rapid.Bool().Draw(t, "early firings")

	h := &harness{t: t, asg: c.asg, aggs: c.aggs, lateness: c.lateness, discard: discard, early: early, nextRev: map[windows.Ref]int{},
		sim: oracle.NewSim(c.asg, c.lateness), table: oracle.NewTable(), changed: map[windows.Ref]bool{}, onTime: map[windows.Ref]bool{},
		store: map[storeKey]storedState{}, dirty: map[windows.Ref]bool{}}
	h.op = windows.NewOperator(h.config())
	maxTS := int64(math.MinInt64)
	var applied, late, dropped int
	counts := &bridgeCounts{}
	if seen != nil && discard {
		counts = &seen[1]
	} else if seen != nil {
		counts = &seen[0]
	}
	for i, e := range events {
		for range countOf(restarts, i) {
			h.restore(c.keys)
		}
		h.out.Reset()
		bridge := h.bridge(e)
		got := h.op.OnRecord(e.Key, windows.Record{TS: e.TS, Values: e.Values}, &h.out)
		want := h.sim.Offer(e)
		if got != want {
			t.Fatalf("record %d (%s@%d) at watermark %d: %v, want %v", i, e.Key, e.TS, h.op.Watermark(), got, want)
		}
		h.persist()
		switch got {
		case windows.Applied:
			applied++
			counts.count(h, e, bridge)
			h.merged()
			h.check(windows.LateUpdate)
			h.markChanged()
			h.forgetAbsorbed()
		case windows.LateOutput:
			if bridge {
				counts.refused++
			}
			late++
			if len(h.out.Late) != 1 || h.out.Late[0].TS != e.TS || h.out.Late[0].Key != e.Key {
				t.Fatalf("record %d went late but the late output is %+v", i, h.out.Late)
			}
		case windows.Dropped:
			dropped++
			if h.out.Dropped != 1 {
				t.Fatalf("record %d was dropped but Dropped = %d", i, h.out.Dropped)
			}
		}
		if got != windows.Applied && len(h.out.Results)+len(h.out.Updated) > 0 {
			t.Fatalf("record %d was not applied yet changed windows: %+v", i, h.out)
		}
		if got != windows.LateOutput && len(h.out.Late) > 0 || got != windows.Dropped && h.out.Dropped > 0 {
			t.Fatalf("record %d (%v) is accounted twice: %+v", i, got, h.out)
		}
		maxTS = max(maxTS, e.TS)
		if (i+1)%c.every == 0 {
			h.advance(maxTS - c.bound - 1)
		}
		if early && rapid.IntRange(0, 3).Draw(t, "early now") == 0 {
			h.fireEarly()
		}
	}
	h.advance(math.MaxInt64)
	for k := range c.keys {
		if key := fmt.Sprintf("k%d", k); h.op.Holds(key) {
			t.Fatalf("windows %v or tombs of %s survived the final watermark", h.op.Windows(key), key)
		}
	}
	if h.flush(); len(h.store) > 0 {
		t.Fatalf("the store keeps %d entries after the final watermark", len(h.store))
	}
	if applied+late+dropped != len(events) {
		t.Fatalf("%d applied + %d late + %d dropped != %d records", applied, late, dropped, len(events))
	}
	if discard {
		h.checkDeltas()
	} else {
		h.checkTable()
	}
}

// bridgeCounts counts, over all runs of one accumulation mode, the late records
// that bridged into a live session and moved its start, those whose new start a
// purged or retracted session had emitted under, and those that would have
// moved a start below the session's reach (the late output).
type bridgeCounts struct{ bridged, revived, refused int }

// count counts an applied record that bridge says was late for its own window
// and touched a live session.
func (c *bridgeCounts) count(h *harness, e oracle.Event, bridge bool) {
	if !bridge || len(h.out.Purged) == 0 || h.out.Updated[len(h.out.Updated)-1].Window.Start != e.TS {
		return
	}
	c.bridged++
	if _, ok := h.table.Revision(e.Key, e.TS); ok {
		c.revived++
	}
}

// bridge reports whether e's own session window is past cleanup and touches a
// live session of its key (whether the merge happens or not).
func (h *harness) bridge(e oracle.Event) bool {
	if !h.asg.Merging() {
		return false
	}
	own := h.asg.Assign(e.TS, nil)[0]
	if own.End-1+h.lateness > h.op.Watermark() {
		return false
	}
	for _, w := range h.op.Windows(e.Key) {
		if w.Start <= own.End && w.End >= own.Start {
			return true
		}
	}
	return false
}

func countOf(xs []int, x int) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// checkDeltas holds discarding windows to theirs: a consumer summing the
// counts of all results counts every record once per window it entered (a
// session's record, once: it is in one session at a time).
func (h *harness) checkDeltas() {
	want := len(h.sim.Accepted())
	if !h.asg.Merging() {
		want = 0
		for _, members := range h.sim.Final() {
			want += len(members)
		}
	}
	if h.delivered != float64(want) {
		h.t.Fatalf("the results' counts sum to %v, want %d", h.delivered, want)
	}
}

// checkTable holds the consumer rule to its promise: the table that upserted
// every result by (key, start), kept the highest revision and deleted on
// retract holds exactly the oracle's final windows, each counted once.
func (h *harness) checkTable() {
	want := h.sim.Final()
	got := h.table.Rows()
	for ref, members := range want {
		vals, ok := got[ref]
		if !ok {
			h.t.Fatalf("the table lacks %s %v (%d records); it holds %v", ref.Key, ref.Window, len(members), got)
		}
		if err := oracle.Equal(vals, oracle.Compute(h.asg, h.aggs, members)[ref], h.aggs); err != nil {
			h.t.Fatalf("table row %s %v: %v", ref.Key, ref.Window, err)
		}
	}
	for ref := range got {
		if _, ok := want[ref]; !ok {
			h.t.Fatalf("the table holds %s %v, which the oracle does not know", ref.Key, ref.Window)
		}
	}
}

type harness struct {
	t        *rapid.T
	asg      windows.Assigner
	aggs     *windows.Aggregates
	lateness int64
	discard  bool
	early    bool
	op       *windows.Operator
	sim      *oracle.Sim
	table    *oracle.Table // a downstream consumer of every result, across restarts
	out      windows.Output
	// nextRev is each live window's next revision: its firings so far, or
	// for a merged session the most of the windows it absorbed.
	nextRev map[windows.Ref]int
	// delivered sums the counts of all results (discarding: of all deltas).
	delivered float64
	// changed: live windows a record changed since they last emitted, which
	// have not fired on time: exactly what the next FireEarly must emit.
	changed map[windows.Ref]bool
	onTime  map[windows.Ref]bool // live windows that fired on time (or late)
	// store is what a window actor would have persisted: by key and start,
	// the window (or tomb) and its state; dirty, what it would write at its
	// next flush: true to write, false to delete.
	store map[storeKey]storedState
	dirty map[windows.Ref]bool
}

type storeKey struct {
	key   string
	start int64
}

type storedState struct {
	w     windows.Window
	state []byte
}

// persist notes what h.out says changed as a window actor does, keeping the
// last word per window: purged, then updated.
func (h *harness) persist() {
	for _, p := range h.out.Purged {
		h.dirty[p] = false
	}
	for _, u := range h.out.Updated {
		h.dirty[u] = true
	}
}

// flush writes the changes noted since the last flush as a window actor does:
// delete the starts of the windows purged, then write every updated window
// the operator still has.
func (h *harness) flush() {
	for ref, put := range h.dirty {
		if !put {
			delete(h.store, storeKey{ref.Key, ref.Window.Start})
		}
	}
	for ref, put := range h.dirty {
		if state, ok := h.op.AppendState(nil, ref.Key, ref.Window); put && ok {
			h.store[storeKey{ref.Key, ref.Window.Start}] = storedState{w: ref.Window, state: state}
		}
	}
	clear(h.dirty)
}

// fireEarly checks an early firing: every changed window, nothing else.
func (h *harness) fireEarly() {
	h.out.Reset()
	h.op.FireEarly(&h.out)
	h.persist()
	h.check(windows.Early)
	if len(h.changed) > 0 {
		h.t.Fatalf("FireEarly left out changed windows %v", h.changed)
	}
	if len(h.out.Purged) > 0 || len(h.out.Late) > 0 {
		h.t.Fatalf("FireEarly purged or rejected something: %+v", h.out)
	}
}

// markChanged notes the windows an applied record changed without firing
// (Updated also names the tombs it left).
func (h *harness) markChanged() {
	if !h.early {
		return
	}
	for _, u := range h.out.Updated {
		if !h.onTime[u] && slices.Contains(h.op.Windows(u.Key), u.Window) {
			h.changed[u] = true
		}
	}
}

func (h *harness) config() windows.OperatorConfig {
	cfg := windows.OperatorConfig{Assigner: h.asg, AllowedLateness: h.lateness, Aggregates: h.aggs, Discarding: h.discard}
	if h.early {
		cfg.Early = 1
	}
	return cfg
}

func (h *harness) advance(wm int64) {
	h.out.Reset()
	h.op.Advance(wm, &h.out)
	h.persist()
	h.check(windows.OnTime)
	h.sim.Advance(wm) // after check: the sim must still hold what just fired
	for _, p := range h.out.Purged {
		delete(h.nextRev, p)
		delete(h.changed, p)
		delete(h.onTime, p)
	}
}

// merged carries revisions over a session merge: in an OnRecord output, the
// purged windows were absorbed by the last updated one, which continues
// from the highest next revision among them.
func (h *harness) merged() {
	if len(h.out.Purged) == 0 {
		return
	}
	into := h.out.Updated[len(h.out.Updated)-1]
	next := 0
	for _, p := range h.out.Purged {
		next = max(next, h.nextRev[p])
	}
	h.nextRev[into] = next
}

// forgetAbsorbed drops the revisions of windows a merge absorbed, once check
// has seen their retracts.
func (h *harness) forgetAbsorbed() {
	for _, p := range h.out.Purged {
		delete(h.nextRev, p)
		delete(h.changed, p)
		delete(h.onTime, p)
	}
}

// check compares every result in h.out with the oracle.
func (h *harness) check(kind windows.Kind) {
	for _, r := range h.out.Results {
		ref := windows.Ref{Key: r.Key, Window: r.Window}
		prev, had := h.table.Revision(r.Key, r.Window.Start)
		if err := h.table.Apply(r); err != nil {
			h.t.Fatalf("at watermark %d: %v", h.op.Watermark(), err)
		}
		if r.Kind == windows.Retract {
			h.checkRetract(r)
			continue
		}
		if r.Kind != kind || r.Watermark != h.op.Watermark() {
			h.t.Fatalf("result %v %v is %v at watermark %d, want %v at %d", r.Key, r.Window, r.Kind, r.Watermark, kind, h.op.Watermark())
		}
		want, ok := oracle.Compute(h.asg, h.aggs, h.sim.Members(ref))[ref]
		if h.discard {
			pending := h.sim.Pending(ref)
			h.sim.Fired(ref)
			want, ok = oracle.Values(h.aggs, pending), ok && len(pending) > 0
		}
		if !ok {
			h.t.Fatalf("result for %s %v, which the oracle does not know (watermark %d)", r.Key, r.Window, h.op.Watermark())
		}
		if err := oracle.Equal(r.Values, want, h.aggs); err != nil {
			h.t.Fatalf("%s %v revision %d at watermark %d: %v", r.Key, r.Window, r.Revision, h.op.Watermark(), err)
		}
		// A session that took the start of one that is gone (a late record
		// bridged into it) counts on past that one's row.
		next := h.nextRev[ref]
		if had {
			next = max(next, prev+1)
		}
		if r.Revision != next {
			h.t.Fatalf("%s %v: revision %d, want %d", r.Key, r.Window, r.Revision, next)
		}
		h.nextRev[ref] = r.Revision + 1
		h.delivered += r.Values[0].Value // allAggregates starts with count
		if r.Kind == windows.Early {
			h.sim.Early(ref)
			if h.onTime[ref] || !h.changed[ref] {
				h.t.Fatalf("early firing of %s %v, which fired on time (%v) or did not change (%v)", r.Key, r.Window, h.onTime[ref], h.changed[ref])
			}
		} else {
			h.onTime[ref] = true
		}
		delete(h.changed, ref)
	}
}

// checkRetract checks a retract against the merge it came from: the window
// was absorbed (purged) into the last updated one, it had emitted, and the
// retract takes its next revision.
func (h *harness) checkRetract(r windows.Result) {
	ref := windows.Ref{Key: r.Key, Window: r.Window}
	into := h.out.Updated[len(h.out.Updated)-1]
	if !slices.Contains(h.out.Purged, ref) || r.MergedInto != into.Window || r.Values != nil || r.Watermark != h.op.Watermark() {
		h.t.Fatalf("retract %+v does not name a window absorbed into %v (purged %v)", r, into.Window, h.out.Purged)
	}
	if next := h.nextRev[ref]; next == 0 || r.Revision != next {
		h.t.Fatalf("retract of %s %v: revision %d, want %d (> 0)", r.Key, r.Window, r.Revision, next)
	}
	h.nextRev[ref] = r.Revision + 1
}

// restore replaces the operator with one restored from the store, as a
// restart would, and checks that the store held everything the key had and
// nothing else.
func (h *harness) restore(keys int) {
	h.flush()
	fresh := windows.NewOperator(h.config())
	for _, sk := range slices.SortedFunc(maps.Keys(h.store), func(a, b storeKey) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.start, b.start))
	}) {
		st := h.store[sk]
		if err := fresh.Restore(sk.key, st.w, st.state); err != nil {
			h.t.Fatalf("restoring %s %v: %v", sk.key, st.w, err)
		}
	}
	fresh.SetWatermark(h.op.Watermark())
	for k := range keys {
		key := fmt.Sprintf("k%d", k)
		if got, want := fresh.Windows(key), h.op.Windows(key); !slices.Equal(got, want) || fresh.Holds(key) != h.op.Holds(key) {
			h.t.Fatalf("restored %s holds %v (state: %v), the operator %v (state: %v)", key, got, fresh.Holds(key), want, h.op.Holds(key))
		}
	}
	h.op = fresh
	clear(h.changed) // early firings are processing-time state, not persisted
}
