package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/valyala/fastjson"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// checker holds edged's output to testing/oracle over a soak that runs for
// days, with memory that follows the open windows rather than the readings.
//
// Its model of a stream's watermark is the generator's rule without the
// processing-time details: the highest event time minus the bound minus one,
// extrapolated by the time elapsed since the last reading once the stream has
// been quiet past its idle timeout. Edged's may lag it by a watermark
// interval, and by an idle timeout after a restart, where idleness is measured
// afresh; the feeds keep every reading far from the edge that lag could move
// it across (sim's disorder within the bound, late readings well inside the
// lateness, too-late ones well past it), and windows are compared only once
// the model's watermark is past their cleanup by settleMargin.
//
// Each window definition runs the oracle's simulation of the lateness rules
// (oracle.Sim) in units: one per key and window for a tumbling window, one per
// key for sessions. A unit goes once every window in it has been compared.
type checker struct {
	defs     []*windowCheck
	byStream map[string][]*windowCheck
	parser   fastjson.Parser
	log      io.Writer
	logged   int // mismatches written to log this day
	day      dayCheck
}

// dayCheck is what one day's output and settling found.
type dayCheck struct {
	refused    int // late records with reason key_limit
	lateOut    int // late records with reason too_late
	settled    int // windows compared
	mismatches int // windows wrong, missing or unexpected, late records not where the oracle puts them, drop counts that differ
	dropped    int // readings the oracle drops (neither applied nor late)
}

// settleMargin is how far past a window's cleanup the model's watermark must be
// before the window is compared: an idle timeout (the lag after a restart) and
// a minute more.
const settleMargin = soakIdle + time.Minute

// maxLogged bounds the mismatches logged per day.
const maxLogged = 10

// windowCheck is the oracle of one window definition.
type windowCheck struct {
	name     string
	op       windows.OperatorConfig
	fields   []string
	bound    int64
	idle     int64
	streams  map[string]*streamModel // by concrete topic
	keyTopic map[string]string       // the topic that fed each key last
	units    map[unitID]*unit
	table    *oracle.Table
	late     map[lateID]bool // readings the oracle sends to the late output, until edged's output shows them
}

type unitID struct {
	key   string
	start int64 // the window's start; 0 for sessions
}

type unit struct {
	sim  *oracle.Sim
	done map[windows.Ref]bool // windows already compared
}

type lateID struct {
	key string
	ts  int64
}

// streamModel is a stream's watermark as the checker models it.
type streamModel struct {
	seen         bool
	max, arrival int64
	wm           int64
}

func newChecker(dev *configs.Device, log io.Writer) (*checker, error) {
	c := &checker{byStream: map[string][]*windowCheck{}, log: log}
	for _, w := range dev.Windows {
		op := w.Operator()
		if op.Assigner.Merging() != (w.Type == "session") || w.Type == "sliding" {
			return nil, fmt.Errorf("window %s: the soak checks tumbling and session windows only", w.Name)
		}
		var stream *configs.Stream
		for _, s := range dev.Streams {
			if s.Name == w.Stream {
				stream = s
			}
		}
		if stream == nil {
			return nil, fmt.Errorf("window %s: no stream %s", w.Name, w.Stream)
		}
		wc := &windowCheck{
			name: w.Name, op: op, fields: op.Aggregates.Fields(),
			bound: stream.Watermark.MaxOutOfOrderness.Milliseconds(), idle: stream.Watermark.IdleTimeout.Milliseconds(),
			streams: map[string]*streamModel{}, keyTopic: map[string]string{}, units: map[unitID]*unit{},
			table: oracle.NewTable(), late: map[lateID]bool{},
		}
		c.defs = append(c.defs, wc)
		c.byStream[w.Stream] = append(c.byStream[w.Stream], wc)
	}
	return c, nil
}

// offer runs one reading, in arrival order, through the oracle of each window
// definition of its stream.
func (c *checker) offer(r *reading) error {
	v, err := c.parser.ParseBytes(r.Payload)
	if err != nil {
		return fmt.Errorf("payload %s: %w", r.Payload, err)
	}
	for _, wc := range c.byStream[r.stream] {
		e := oracle.Event{Key: r.key, TS: r.TS, Values: make([]windows.Value, len(wc.fields))}
		for i, f := range wc.fields {
			if x := v.Get(f); x != nil && x.Type() == fastjson.TypeNumber {
				e.Values[i] = windows.NumberValue(x.GetFloat64())
			}
		}
		wc.offer(e, r.Topic, r.At, &c.day)
	}
	return nil
}

func (wc *windowCheck) offer(e oracle.Event, topic string, at int64, day *dayCheck) {
	s := wc.streams[topic]
	if s == nil {
		s = &streamModel{wm: watermark.Min}
		wc.streams[topic] = s
	}
	wm := s.observe(e.TS, at, wc.bound, wc.idle)
	wc.keyTopic[e.Key] = topic
	id := unitID{key: e.Key}
	if !wc.op.Assigner.Merging() {
		id.start = wc.op.Assigner.Assign(e.TS, nil)[0].Start
	}
	u := wc.units[id]
	if u == nil {
		u = &unit{sim: oracle.NewSim(wc.op.Assigner, wc.op.AllowedLateness), done: map[windows.Ref]bool{}}
		wc.units[id] = u
	}
	u.sim.Advance(wm)
	switch u.sim.Offer(e) {
	case windows.LateOutput:
		wc.late[lateID{e.Key, e.TS}] = true
	case windows.Dropped:
		day.dropped++
	}
	if len(u.sim.Accepted()) == 0 {
		delete(wc.units, id)
	}
}

// observe takes a reading with event time ts arriving at at and returns the
// watermark it meets.
func (s *streamModel) observe(ts, at, bound, idle int64) int64 {
	s.wm = s.at(at, bound, idle)
	if !s.seen || ts > s.max {
		s.max = ts
	}
	s.seen, s.arrival = true, at
	s.wm = max(s.wm, watermark.AddSat(s.max, -bound-1))
	return s.wm
}

// at is the stream's watermark at processing time now with no new reading.
func (s *streamModel) at(now, bound, idle int64) int64 {
	if !s.seen || idle <= 0 || now-s.arrival <= idle {
		return s.wm
	}
	return max(s.wm, watermark.AddSat(s.max, -bound-1)+(now-s.arrival))
}

// readOutput applies one replay's output: results to each window's table,
// late records against the oracle's.
func (c *checker) readOutput(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading the replay's output: %w", err)
	}
	defer f.Close()
	byName := map[string]*windowCheck{}
	for _, wc := range c.defs {
		byName[wc.name] = wc
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if late, ok := bytes.CutPrefix(line, []byte(`{"late":`)); ok {
			if err := c.lateRecord(byName, bytes.TrimSuffix(late, []byte("}"))); err != nil {
				return fmt.Errorf("%s line %d: %w", path, n, err)
			}
			continue
		}
		r, err := harness.ParseResult(line)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", path, n, err)
		}
		wc := byName[r.Window]
		if wc == nil {
			return fmt.Errorf("%s line %d: a result of window %q, which is not configured", path, n, r.Window)
		}
		res, err := wc.result(r)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", path, n, err)
		}
		if err := wc.table.Apply(res); err != nil {
			c.mismatch("window %s: %v", wc.name, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	// Late records are committed with the readings that made them: whatever
	// the oracle sent to the late output and the replay did not is missing.
	for _, wc := range c.defs {
		for id := range wc.late {
			c.mismatch("window %s: key %s ts %d: the oracle sends it to the late output, edged did not", wc.name, id.key, id.ts)
		}
		clear(wc.late)
	}
	return nil
}

func (c *checker) lateRecord(byName map[string]*windowCheck, b []byte) error {
	var l struct {
		Window, Key, Reason string
		TS                  int64
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("decoding late record %s: %w", b, err)
	}
	wc := byName[l.Window]
	switch {
	case l.Reason == "key_limit":
		c.day.refused++
	case wc == nil:
		c.mismatch("late record %s: no such window", b)
	case l.Reason != "too_late" || !wc.late[lateID{l.Key, l.TS}]:
		c.mismatch("window %s: key %s ts %d went to the late output (%s), the oracle applies or drops it", wc.name, l.Key, l.TS, l.Reason)
	default:
		c.day.lateOut++
		delete(wc.late, lateID{l.Key, l.TS})
	}
	return nil
}

// result converts a result record for the oracle's table.
func (wc *windowCheck) result(r harness.Result) (windows.Result, error) {
	out := windows.Result{Key: r.Key, Window: windows.Window{Start: r.Start, End: r.End}, Revision: r.Revision}
	switch r.Kind {
	case "on_time":
		out.Kind = windows.OnTime
	case "late_update":
		out.Kind = windows.LateUpdate
	case "retract":
		out.Kind = windows.Retract
	default:
		return out, fmt.Errorf("result of kind %q: the soak's windows have no early firings", r.Kind)
	}
	for _, n := range wc.op.Aggregates.Names() {
		v := math.NaN()
		if p := r.Values[n]; p != nil {
			v = *p
		}
		out.Values = append(out.Values, windows.NamedValue{Name: n, Value: v})
	}
	return out, nil
}

// settle compares every window whose cleanup the model's watermark passed by
// settleMargin at processing time now (all of them if now is math.MaxInt64,
// after a replay that closed every window) with the oracle's recomputation,
// and forgets them.
func (c *checker) settle(now int64) {
	for _, wc := range c.defs {
		done := func(ref windows.Ref) bool {
			if now == math.MaxInt64 {
				return true
			}
			s := wc.streams[wc.keyTopic[ref.Key]]
			if s == nil {
				return false
			}
			return watermark.AddSat(ref.Window.End-1, wc.op.AllowedLateness) <= s.at(now, wc.bound, wc.idle)-settleMargin.Milliseconds()
		}
		got := wc.table.Take(done)
		for id, u := range wc.units {
			final := u.sim.Final()
			for ref, members := range final {
				if u.done[ref] || !done(ref) {
					continue
				}
				u.done[ref] = true
				c.day.settled++
				want := oracle.Compute(wc.op.Assigner, wc.op.Aggregates, members)[ref]
				g, ok := got[ref]
				delete(got, ref)
				switch {
				case !ok:
					c.mismatch("window %s: %s %d..%d (%d readings): edged has no result", wc.name, ref.Key, ref.Window.Start, ref.Window.End, len(members))
				case oracle.Equal(g, want, wc.op.Aggregates) != nil:
					c.mismatch("window %s: %s %d..%d: %v", wc.name, ref.Key, ref.Window.Start, ref.Window.End, oracle.Equal(g, want, wc.op.Aggregates))
				}
			}
			if unsettled(final, u.done) == 0 {
				delete(wc.units, id)
			}
		}
		for ref := range got {
			c.mismatch("window %s: %s %d..%d: edged has a result, the oracle no such window", wc.name, ref.Key, ref.Window.Start, ref.Window.End)
		}
	}
}

// open is the number of windows the oracle holds that are not compared yet.
func (c *checker) open() int {
	n := 0
	for _, wc := range c.defs {
		for _, u := range wc.units {
			n += unsettled(u.sim.Final(), u.done)
		}
	}
	return n
}

// unsettled counts the windows of final not compared yet. A session compared
// may have left final since: one that took its start replaced it.
func unsettled(final map[windows.Ref][]oracle.Event, done map[windows.Ref]bool) int {
	n := 0
	for ref := range final {
		if !done[ref] {
			n++
		}
	}
	return n
}

func (c *checker) mismatch(format string, a ...any) {
	c.day.mismatches++
	if c.logged++; c.logged <= maxLogged {
		fmt.Fprintf(c.log, "mismatch: "+format+"\n", a...)
	} else if c.logged == maxLogged+1 {
		fmt.Fprintf(c.log, "mismatch: (more this day not shown)\n")
	}
}

// endDay returns what the day found and starts the next; dropped, the
// readings edged dropped by its metrics, must match the oracle's count.
func (c *checker) endDay(dropped int) dayCheck {
	if dropped != c.day.dropped {
		c.mismatch("edged dropped %d readings, the oracle %d", dropped, c.day.dropped)
	}
	d := c.day
	c.day, c.logged = dayCheck{}, 0
	return d
}
