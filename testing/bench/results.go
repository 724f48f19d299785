package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// resultTopic is where the benchmark config publishes its window results.
const resultTopic = "edged/bench/per-10s/+"

// benchAggregates are the benchmark config's aggregates, in output order.
var benchAggregates = []string{"count", "avg(temp)", "min(temp)", "max(temp)", "p95(temp)"}

// received is one result record and when the collector got it.
type received struct {
	r  harness.Result
	at time.Time
}

// collector subscribes to edged's results on the broker for one trial.
type collector struct {
	c    *mqtt.Client
	mu   sync.Mutex
	got  []received
	errs []error
}

func collect(ctx context.Context, url string) (*collector, error) {
	col := &collector{}
	c, err := mqtt.Connect(ctx, mqtt.Options{
		URL: url, ClientID: fmt.Sprintf("bench-results-%d", time.Now().UnixNano()), CleanSession: true,
		Subscriptions: []mqtt.Subscription{{Filter: resultTopic, QoS: 1}},
		Handler: func(m *mqtt.Message) {
			at := time.Now()
			r, err := harness.ParseResult(m.Payload)
			col.mu.Lock()
			defer col.mu.Unlock()
			if err != nil {
				col.errs = append(col.errs, err)
				return
			}
			col.got = append(col.got, received{r: r, at: at})
		},
		Logger: discardLogger(),
	})
	if err != nil {
		return nil, err
	}
	col.c = c
	return col, nil
}

func (col *collector) close() { col.c.Close(time.Second) }

func (col *collector) snapshot() ([]received, []error) {
	col.mu.Lock()
	defer col.mu.Unlock()
	return slices.Clone(col.got), slices.Clone(col.errs)
}

// due is the windows, among those the published messages fall into, whose
// end their sensor's watermark passed: each must have fired.
func due(s *sent) map[windows.Ref]bool {
	out := map[windows.Ref]bool{}
	for _, e := range s.events {
		ms := s.marks[e.Key]
		wm := ms[len(ms)-1].ts - boundMS - 1
		start := e.TS - e.TS%windowMS
		if start+windowMS-1 <= wm {
			out[windows.Ref{Key: e.Key, Window: windows.Window{Start: start, End: start + windowMS}}] = true
		}
	}
	return out
}

// awaitResults waits, up to limit, until every due window has a result.
func (col *collector) awaitResults(want map[windows.Ref]bool, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		got, _ := col.snapshot()
		have := 0
		for _, g := range got {
			if want[windows.Ref{Key: g.r.Key, Window: windows.Window{Start: g.r.Start, End: g.r.End}}] {
				have++
			}
		}
		if have >= len(want) {
			return
		}
		time.Sleep(20 * time.Millisecond) // polling the collector
	}
}

// check compares every result row against testing/oracle's recomputation
// over what was published, and requires a row for every due window. It
// returns the rows checked, a description of every problem (at most a few
// listed), and the result latencies: from the publish that moved the sensor's
// watermark past the window's end to the row's arrival.
func check(s *sent, got []received, decodeErrs []error) (rows int, problem string, latencies []time.Duration) {
	aggs, err := windows.ParseAggregates(benchAggregates)
	if err != nil {
		panic(err) // a constant
	}
	want := oracle.Compute(windows.Tumbling(windowMS, 0), aggs, s.events)
	dueRefs := due(s)
	var bad []string
	note := func(format string, a ...any) {
		if len(bad) < 3 {
			bad = append(bad, fmt.Sprintf(format, a...))
		} else if len(bad) == 3 {
			bad = append(bad, "...")
		}
	}
	for _, err := range decodeErrs {
		note("%v", err)
	}
	seen := map[windows.Ref]bool{}
	wrong := 0
	for _, g := range got {
		ref := windows.Ref{Key: g.r.Key, Window: windows.Window{Start: g.r.Start, End: g.r.End}}
		rows++
		if seen[ref] {
			wrong++
			note("%s [%d,%d) fired twice", ref.Key, ref.Window.Start, ref.Window.End)
			continue
		}
		seen[ref] = true
		w, ok := want[ref]
		if !ok {
			wrong++
			note("%s [%d,%d): a window no published message falls into", ref.Key, ref.Window.Start, ref.Window.End)
			continue
		}
		vals := make([]windows.NamedValue, 0, len(aggs.Names()))
		for _, name := range aggs.Names() {
			v := math.NaN()
			if p := g.r.Values[name]; p != nil {
				v = *p
			}
			vals = append(vals, windows.NamedValue{Name: name, Value: v})
		}
		if err := oracle.Equal(vals, w, aggs); err != nil || g.r.Kind != "on_time" || g.r.Revision != 0 {
			wrong++
			note("%s [%d,%d) %s revision %d: %v", ref.Key, ref.Window.Start, ref.Window.End, g.r.Kind, g.r.Revision, err)
			continue
		}
		if at, ok := s.passedAt(ref.Key, ref.Window.End); ok {
			latencies = append(latencies, g.at.Sub(at))
		}
	}
	missing := 0
	for ref := range dueRefs {
		if !seen[ref] {
			missing++
			if missing == 1 {
				note("%s [%d,%d) is due and never fired", ref.Key, ref.Window.Start, ref.Window.End)
			}
		}
	}
	if wrong > 0 || missing > 0 || len(decodeErrs) > 0 {
		problem = fmt.Sprintf("%d of %d rows differ from the oracle, %d of %d due windows missing: %v",
			wrong, rows, missing, len(dueRefs), bad)
	}
	slices.Sort(latencies)
	return rows, problem, latencies
}

// percentile of sorted ds (nearest rank).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(ds)))) - 1
	return ds[max(i, 0)]
}
