package windows_test

import (
	"fmt"
	"math"
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
// watermark (maxTs - B - 1, advanced every few records), restoring it from
// its own persisted state once midway. Every result must equal the oracle
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
		bound := rapid.Int64Range(0, 40).Draw(t, "bound")
		lateness := rapid.Int64Range(0, 50).Draw(t, "lateness")
		every := rapid.IntRange(1, 6).Draw(t, "advance every")
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
		restoreAt := rapid.IntRange(0, cfg.Events).Draw(t, "restore at")
		discard := rapid.Bool().Draw(t, "discarding")
		early := rapid.Bool().Draw(t, "early firings")
		events := oracle.Generate(cfg)

		h := &harness{t: t, asg: asg, aggs: aggs, lateness: lateness, discard: discard, early: early, nextRev: map[windows.Ref]int{},
			sim: oracle.NewSim(asg, lateness), table: oracle.NewTable(), changed: map[windows.Ref]bool{}, onTime: map[windows.Ref]bool{}}
		h.op = windows.NewOperator(h.config())
		maxTS := int64(math.MinInt64)
		var applied, late, dropped int
		for i, e := range events {
			if i == restoreAt {
				h.restore(cfg.Keys)
			}
			h.out.Reset()
			got := h.op.OnRecord(e.Key, windows.Record{TS: e.TS, Values: e.Values}, &h.out)
			want := h.sim.Offer(e)
			if got != want {
				t.Fatalf("record %d (%s@%d) at watermark %d: %v, want %v", i, e.Key, e.TS, h.op.Watermark(), got, want)
			}
			switch got {
			case windows.Applied:
				applied++
				h.merged()
				h.check(windows.LateUpdate)
				h.markChanged()
				h.forgetAbsorbed()
			case windows.LateOutput:
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
			if (i+1)%every == 0 {
				h.advance(maxTS - bound - 1)
			}
			if early && rapid.IntRange(0, 3).Draw(t, "early now") == 0 {
				h.fireEarly()
			}
		}
		h.advance(math.MaxInt64)
		for k := range cfg.Keys {
			if ws := h.op.Windows(fmt.Sprintf("k%d", k)); len(ws) > 0 {
				t.Fatalf("windows %v of k%d survived the final watermark", ws, k)
			}
		}
		if applied+late+dropped != len(events) {
			t.Fatalf("%d applied + %d late + %d dropped != %d records", applied, late, dropped, len(events))
		}
		if discard {
			h.checkDeltas()
		} else {
			h.checkTable()
		}
	})
}

// checkDeltas holds discarding windows to theirs: a consumer summing the
// counts of all results counts every record once per window it entered.
func (h *harness) checkDeltas() {
	want := 0
	for _, members := range h.sim.Final() {
		want += len(members)
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
}

// fireEarly checks an early firing: every changed window, nothing else.
func (h *harness) fireEarly() {
	h.out.Reset()
	h.op.FireEarly(&h.out)
	h.check(windows.Early)
	if len(h.changed) > 0 {
		h.t.Fatalf("FireEarly left out changed windows %v", h.changed)
	}
	if len(h.out.Purged) > 0 || len(h.out.Late) > 0 {
		h.t.Fatalf("FireEarly purged or rejected something: %+v", h.out)
	}
}

// markChanged notes the windows an applied record changed without firing.
func (h *harness) markChanged() {
	if !h.early {
		return
	}
	for _, u := range h.out.Updated {
		if !h.onTime[u] && !slices.Contains(h.out.Purged, u) {
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
		if next := h.nextRev[ref]; r.Revision != next {
			h.t.Fatalf("%s %v: revision %d, want %d", r.Key, r.Window, r.Revision, next)
		}
		h.nextRev[ref] = r.Revision + 1
		h.delivered += r.Values[0].Value // allAggregates starts with count
		if r.Kind == windows.Early {
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

// restore replaces the operator with one restored from the persisted form
// of every live window, as a restart would.
func (h *harness) restore(keys int) {
	fresh := windows.NewOperator(h.config())
	var buf []byte
	for k := range keys {
		key := fmt.Sprintf("k%d", k)
		for _, w := range h.op.Windows(key) {
			var ok bool
			buf, ok = h.op.AppendState(buf[:0], key, w)
			if !ok {
				h.t.Fatalf("AppendState(%s, %v) reports a live window missing", key, w)
			}
			if err := fresh.Restore(key, w, buf); err != nil {
				h.t.Fatalf("restoring %s %v: %v", key, w, err)
			}
		}
	}
	fresh.SetWatermark(h.op.Watermark())
	h.op = fresh
	clear(h.changed) // early firings are processing-time state, not persisted
}
