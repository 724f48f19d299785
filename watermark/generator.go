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

	seen     bool
	max      int64 // highest accepted event time
	arrival  int64 // processing time of the last accepted record; the skew guard measures from it
	idleFrom int64 // processing time the idle timer runs from: last accepted record or Restore
	wm       int64
	idle     bool

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
	g.seen = true
	g.arrival, g.idleFrom, g.baseAt = now, now, now
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

// Tick returns the status at processing time now, and whether it differs
// (in watermark or idleness) from the status the previous Tick returned. The
// first Tick compares with {Min, active}, so a generator that has seen
// nothing reports no change.
//
// A stream becomes idle when no record was accepted for IdleTimeout. Idleness
// needs a first record to measure from, and it is left only by Observe, so a
// processing clock that jumps back cannot make the stream flap.
func (g *Generator) Tick(now int64) (Status, bool) {
	if g.seen && !g.idle && g.cfg.IdleTimeout > 0 && elapsed(now, g.idleFrom) >= g.cfg.IdleTimeout {
		g.idle = true
	}
	if g.idle && g.cfg.IdleMode == Advance && g.base != Min {
		g.wm = max(g.wm, AddSat(g.base, elapsed(now, g.baseAt)))
	}
	s := Status{Watermark: g.wm, Idle: g.idle}
	changed := s != g.last
	g.last = s
	return s, changed
}

// State returns what must survive a restart.
func (g *Generator) State() GeneratorState {
	return GeneratorState{Max: g.max, LastArrival: g.arrival, Watermark: g.wm, Seen: g.seen, Idle: g.idle}
}

// Restore replaces the generator's state with s, read back after a restart
// at processing time now.
//
// Idleness is measured from now, not from s.LastArrival: while edged was
// down the broker queued the stream's messages, and the restart replays that
// backlog; counting the downtime as idleness would extrapolate the watermark
// over it and make the whole backlog late. For the same reason an idle
// stream in Advance mode resumes extrapolating from s.Watermark at now.
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
	g.idleFrom = now
	g.wm = s.Watermark
	g.idle = s.Idle
	g.base, g.baseAt = s.Watermark, now
	g.last = Status{Watermark: Min}
}
