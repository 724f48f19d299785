package actors

import (
	"math"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/watermark"
)

// Most of a gateway's sensors are quiet most of the time, and the periodic check of
// a quiet stream finds nothing to do at almost every tick: it waits out the idle
// timeout, or moves an idle stream's watermark short of any timer
// (source_quiet_watermark.go), which is not saved either (pipeline_uptime.go). Each check
// still costs a Tick and a mailbox turn per source and interval, which thousands of
// quiet sensors add up to a share of a core spent on nothing.
//
// So after its check a quiet source works out the first check that can do
// something if no record comes (watermark.Generator.NextIdleChange, Drift) and
// leaves it in its handle; the pipeline does not tick it before then, and the
// gauges the skipped checks would have set are computed from the drift when read
// (status.Topic.Sleeping). Every check skipped would have
// left the source as the next one finds it, except for the watermark an idle
// stream extrapolates, which the next check computes from the time alone. Any
// message but a Tick first runs the last check skipped, which a ticked source
// would have run before that message; a record, a mark or a new window actor to
// feed also ends the sleep. So a source meets every message in the state it would
// have had, and replay's output does not change.
//
// That holds where every source tick of the pipeline is a check of the stream:
// its interval is the device's shortest. Not while watermarks are traced (replay
// --watermarks), which shows every change.

// sourceSleep is what a sleeping source leaves the pipeline. It is never changed
// once published: the pipeline reads it on its own goroutine.
type sourceSleep struct {
	until int64 // the first source tick the source must have
	drift watermark.Drift
}

// sleep leaves the time of the next useful check after the one at now in the
// handle, or clears it if that is the next check anyway.
func (s *source) sleep(now int64) {
	d := s.gen.Drift()
	until := s.nextUsefulCheck(d)
	if until <= watermark.AddSat(now, s.plan.interval) {
		s.awake()
		return
	}
	if z := s.handle.sleep.Load(); z != nil && z.until == until && z.drift == d {
		return // a flush after the check that decided it
	}
	s.handle.sleep.Store(&sourceSleep{until: until, drift: d})
	// The checks it skips would have moved the lag (and an idle stream's watermark)
	// that /status and the metrics show: they compute it from the drift instead.
	s.stats.Sleeping(&d)
}

// nextUsefulCheck returns the earliest processing time at which a check may do
// something, if no message but ticks comes before; d is the generator's drift.
func (s *source) nextUsefulCheck(d watermark.Drift) int64 {
	if !s.plan.sleeps || s.env.traceWatermark != nil {
		return math.MinInt64
	}
	if !d.Advancing() {
		return s.gen.NextIdleChange() // the watermark holds until a record or mark
	}
	// Idle, extrapolating: a move is sent from where unheard says, and never saved
	// (pipeline_uptime.go).
	if len(s.fed) == 0 {
		return math.MaxInt64
	}
	return d.Reaches(s.sentFrom(true))
}

// catchUp runs the check the pipeline skipped last, if it skipped any.
func (s *source) catchUp(ctx actor.Context) {
	if s.handle.sleep.Load() != nil {
		s.onTick(ctx, s.ticked.Load())
	}
}

// wake catches up and has the source ticked again: a record, a mark or a window
// actor it starts to feed change what its checks do.
func (s *source) wake(ctx actor.Context) {
	s.catchUp(ctx)
	s.awake()
}

func (s *source) awake() {
	s.quietSent = false
	if s.handle.sleep.Load() != nil && s.handle.sleep.Swap(nil) != nil {
		s.stats.Sleeping(nil)
		s.handle.woke()
	}
}
