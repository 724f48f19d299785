package actors

import (
	"sync/atomic"

	"github.com/edged/edged/watermark"
)

// An idle stream in advance mode moves its watermark at every check, and a restart
// should resume it where it was. Saving each move would cost a state write per idle
// topic and check: with thousands of idle sensors, thousands of Badger writes a
// second of a gateway doing nothing, wearing out its flash.
//
// So a source saves its state when the stream goes idle, with the base its watermark
// is extrapolated from (watermark.GeneratorState.Base), and not again until something
// other than time moves it: a record, a mark. Instead the pipeline saves, once a
// second while any of its sources saved such a state, how long the device has run:
// its uptime, the processing time of its runs added up, which the bases are taken
// on. A restart drifts each saved state to the uptime saved last
// (GeneratorState.Drifted): the watermark it had then, give or take the second since.
// Downtime is not counted, as Restore does not count it: the broker replays the
// backlog of the downtime after a restart, and a watermark moved over it would make
// it late.
//
// The uptime saved is that of the pipeline's last source tick before its flush, and
// every source that answers the flush was checked up to it (a sleeping one catches up
// first). A source that took a record after the flush asked it has that record in
// the next epoch: if a crash loses that epoch the broker delivers the record again,
// and the restart is what it would have been had the record come after the crash.

// uptimeEvery is how often (ms of processing time) a pipeline saves its uptime while
// a saved state extrapolates from it: after a kill -9 such a stream resumes up to this
// much further back, so its next window fires up to a second later.
const uptimeEvery = 1000

// uptime is a pipeline's clock of the device's uptime. The pipeline starts it at its
// first source tick; its sources read it when they save an idle state.
type uptime struct {
	offset  atomic.Int64 // uptime minus processing time
	started atomic.Bool

	// The pipeline's own: the uptime saved last by the previous runs, and the
	// processing time at which it last saved it.
	before, savedAt int64
}

// start begins counting at processing time now from the uptime the previous runs
// left.
func (u *uptime) start(now int64) {
	if !u.started.Load() {
		u.offset.Store(u.before - now)
		u.savedAt = now
		u.started.Store(true)
	}
}

// at returns the uptime at processing time t, if the clock has started.
func (u *uptime) at(t int64) (int64, bool) {
	if !u.started.Load() {
		return 0, false
	}
	return watermark.AddSat(t, u.offset.Load()), true
}

// proc returns the processing time at which the uptime was up, if the clock has
// started: the inverse of at.
func (u *uptime) proc(up int64) (int64, bool) {
	if !u.started.Load() {
		return 0, false
	}
	return watermark.AddSat(up, -u.offset.Load()), true
}

// due reports whether the pipeline should save the uptime of processing time now
// with its next flush: while advancing says that a saved state extrapolates from
// it, a second after it last did, or at once for the last flush before a stop,
// after which the restart resumes exactly. It notes the save.
func (u *uptime) due(now int64, advancing, last bool) (int64, bool) {
	if !advancing || (now-u.savedAt < uptimeEvery && !last) {
		return 0, false
	}
	ms, ok := u.at(now)
	if ok {
		u.savedAt = now
	}
	return ms, ok
}

// uptimeDue reports whether the next full flush saves the device's uptime (due).
func (p *pipeline) uptimeDue() bool {
	return p.advancing && p.sourceTicked.Load()-p.uptime.savedAt >= uptimeEvery
}

// saved returns st as it is saved: its base taken on the uptime clock, or none if
// that has not started (it then restores the watermark it saved, and kept is false).
func (u *uptime) saved(st watermark.GeneratorState) (_ watermark.GeneratorState, kept bool) {
	if st.Base == watermark.Min {
		return st, true
	}
	at, ok := u.at(st.BaseAt) // 0 if not
	if !ok {
		st.Base = watermark.Min
	}
	st.BaseAt = at
	return st, ok
}

// saveLater reports whether the source may leave its status unsaved: it was idle
// when last saved and only time has moved it since, which a restart recomputes.
func (s *source) saveLater(st watermark.Status) bool {
	gs := s.gen.State()
	return st.Idle && s.savedIdle && gs.Base == s.saved.Base && gs.BaseAt == s.saved.BaseAt
}
