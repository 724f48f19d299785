package watermark

// Generator derives one stream's watermark and idleness. It is owned by the
// stream's source actor and is not safe for concurrent use.
//
// The watermark only changes in three places: Observe (Bounded and
// Monotonous), Mark, and Tick while the stream is idle in Advance mode. It
// never goes backwards.
type Generator struct {
	cfg   Config
	bound int64 // B as applied; 0 unless Bounded

	max     int64 // highest accepted event time
	arrival int64 // processing time of the last accepted record; the skew guard measures from it
	wm      int64

	// Flink's IdlenessTimer: Tick is the periodic check. A check that
	// finds a record since the previous one (active) stops the countdown;
	// the first check that finds none starts it at its own time (quietFrom);
	// a later check declares the stream idle when strictly more than the
	// timeout has passed since then.
	quietFrom int64

	// The flags side by side, in one word: a gateway has a generator per topic.
	seen     bool
	idle     bool
	active   bool
	counting bool

	// Advance mode extrapolates from base, the watermark the stream's own
	// clock justified at processing time baseAt.
	base, baseAt int64

	last Status // what Tick last returned
}

// NewGenerator returns a generator at Min that has seen no record.
func NewGenerator(cfg Config) *Generator {
	cfg.MaxOutOfOrderness = max(cfg.MaxOutOfOrderness, 0)
	cfg.IdleTimeout = max(cfg.IdleTimeout, 0)
	cfg.MaxFutureSkew = max(cfg.MaxFutureSkew, 0)
	return &Generator{
		cfg:   cfg,
		bound: cfg.bound(),
		max:   Min,
		wm:    Min,
		base:  Min,
		last:  Status{Watermark: Min},
	}
}

// Observe reports a record with event time ts arriving at processing time now.
//
// A record counts for idleness whatever the strategy, but moves the watermark
// only for Bounded and Monotonous. The watermark is not extrapolated here:
// an idle stream's record is judged against the watermark Tick last emitted,
// which is what the window operators have seen.
func (g *Generator) Observe(ts, now int64) Verdict {
	if g.isFuture(ts, now) {
		return Future
	}
	if !g.seen || ts > g.max {
		g.max = ts
	}
	g.seen, g.active = true, true
	g.arrival, g.baseAt = now, now
	if g.cfg.Strategy != Punctuated {
		g.base = AddSat(g.max, -g.bound-1)
		g.wm = max(g.wm, g.base)
	}
	if g.idle {
		g.idle = false
		return Reactivated
	}
	return Accepted
}

// isFuture is the skew guard: the stream's own clock is taken to have
// advanced by the processing time since its last record, and a record more
// than MaxFutureSkew ahead of that is not believed.
//
// The first record has no stream clock to be compared with, and if it were
// believed a year-9999 timestamp would move the watermark there for good. It
// is judged against the processing clock instead, but only when that is a
// wall clock (WallClockFrom or later): replays and tests that count
// processing time from zero judge nothing, and replays of old data, whose
// processing time is that of the recording, pass.
func (g *Generator) isFuture(ts, now int64) bool {
	switch {
	case g.cfg.MaxFutureSkew == 0:
		return false
	case !g.seen:
		return now >= WallClockFrom && ts > AddSat(now, g.cfg.MaxFutureSkew)
	}
	limit := AddSat(AddSat(g.max, elapsed(now, g.arrival)), g.cfg.MaxFutureSkew)
	return ts > limit
}

// WallClockFrom is 2000-01-01T00:00:00Z in ms: a processing time before it is
// not taken for the gateway's wall clock.
const WallClockFrom int64 = 946684800000

// Mark applies a watermark carried in the stream at processing time now. It
// is the only source of watermarks for Punctuated; for the other strategies
// it can only move the watermark forward (replay uses it for explicit
// watermark lines). A mark is not a record: it does not make an idle stream
// active, but an idle stream in Advance mode extrapolates from it.
func (g *Generator) Mark(wm, now int64) {
	g.wm = max(g.wm, wm)
	if wm > g.base {
		g.base, g.baseAt = wm, now
	}
}

// Tick is the periodic check (every interval of processing time): it runs
// the idleness countdown, then returns the status at now and whether it
// differs (in watermark or idleness) from the status last returned. The
// first Tick compares with {Min, active}.
//
// Idleness is Flink's WatermarksWithIdleness: the countdown starts at the
// first check that saw no record since the previous check, and the stream is
// idle at a check more than IdleTimeout after that, so a stream that never
// had a record goes idle too. Both idle modes share the rule; Advance starts
// extrapolating at the check that declares idleness. Idleness is left only by
// Observe, so a processing clock that jumps back cannot make the stream flap.
func (g *Generator) Tick(now int64) (Status, bool) {
	g.checkIdle(now)
	return g.Peek(now)
}

func (g *Generator) checkIdle(now int64) {
	if g.cfg.IdleTimeout > 0 && !g.idle {
		switch {
		case g.active:
			g.active, g.counting = false, false
		case !g.counting:
			g.counting, g.quietFrom = true, now
		case elapsed(now, g.quietFrom) > g.cfg.IdleTimeout:
			g.idle = true
		}
	}
}

// Peek returns what Tick would without running the idleness check: the
// status to emit between periodic checks (a record reactivated the stream, a
// mark moved the watermark), which must not start or stop the countdown.
func (g *Generator) Peek(now int64) (Status, bool) {
	g.wm = g.Drift().At(now)
	s := Status{Watermark: g.wm, Idle: g.idle}
	changed := s != g.last
	g.last = s
	return s, changed
}

// Status returns the watermark and idleness last emitted, as a record meets them.
func (g *Generator) Status() Status { return Status{Watermark: g.wm, Idle: g.idle} }

// State returns what must survive a restart.
func (g *Generator) State() GeneratorState {
	st := GeneratorState{Max: g.max, LastArrival: g.arrival, Watermark: g.wm, Seen: g.seen, Idle: g.idle, Base: Min}
	if g.Drift().Advancing() {
		st.Base, st.BaseAt = g.base, g.baseAt
	}
	return st
}

// Restore replaces the generator's state with s, read back after a restart
// at processing time now.
//
// The idleness countdown starts afresh at the first Tick, as Flink's does,
// not from s.LastArrival: while edged was down the broker queued the
// stream's messages, and the restart replays that backlog; counting the
// downtime as idleness would extrapolate the watermark over it and make the
// whole backlog late. For the same reason an idle stream in Advance mode
// resumes extrapolating from s.Watermark at now: s.Base and s.BaseAt are
// ignored (see GeneratorState.Drifted).
//
// The skew guard, by contrast, keeps measuring from s.LastArrival: the
// device's clock did run during the downtime, and a backlog with a gap in it
// (messages the broker dropped) must not be rejected as coming from the
// future.
//
// The next Tick reports the restored status as changed (unless it is Min and
// active), so it is emitted again.
func (g *Generator) Restore(s GeneratorState, now int64) {
	g.seen = s.Seen
	g.max = s.Max
	g.arrival = s.LastArrival
	g.active, g.counting = false, false
	g.wm = s.Watermark
	g.idle = s.Idle
	g.base, g.baseAt = s.Watermark, now
	g.last = Status{Watermark: Min}
}

// Resume gives the generator the state s of a stream that went idle and whose owner
// was stopped meanwhile (passivated), so that it goes on exactly as a generator that
// was checked all along: s is what State returned once the stream was idle, with
// BaseAt moved to the processing clock of now (baseAt). Unlike Restore, nothing
// starts afresh: an idle stream in Advance mode keeps extrapolating from its base.
func (g *Generator) Resume(s GeneratorState, baseAt int64) {
	g.seen, g.max, g.arrival = s.Seen, s.Max, s.LastArrival
	g.active, g.counting = false, false
	g.wm, g.idle = s.Watermark, s.Idle
	g.base, g.baseAt = s.Watermark, baseAt
	if s.Base != Min {
		g.base = s.Base
	}
	g.last = g.Status()
}
