package explain

import (
	"fmt"
	"math"
	"strings"

	"github.com/edged/edged/watermark"
)

// Estimates of when a pending window fires on a running daemon, in processing
// time from Now. A stream's watermark moves with its readings; how fast it moved
// lately (Speed) is measured by the status sampler, and a stream not measured yet
// is taken to move with the clock, as a sensor reporting in real time does.

// atCurrentRate is when the combined watermark reaches due if every stream short
// of it goes on moving as fast as lately: when the slowest of them gets there.
func (e *Explanation) atCurrentRate(in *Input, due int64, behind []*Stream) *ETA {
	var worst int64
	why := ""
	for _, s := range behind {
		if int64(s.Watermark) == watermark.Min {
			return &ETA{Because: s.Stream + " has no watermark yet"}
		}
		speed, how := 1.0, "is taken to move with the clock (not measured yet)"
		if g := in.Streams[s.Stream]; g.SpeedKnown {
			speed, how = g.Speed, fmt.Sprintf("moved %.2f× as fast as the clock lately", g.Speed)
		}
		if speed < 1e-3 {
			return &ETA{Because: s.Stream + "'s watermark has not moved lately"}
		}
		need := due - int64(s.Watermark)
		if t := int64(math.Ceil(float64(need) / speed)); t >= worst {
			worst = t
			why = fmt.Sprintf("%s has %s of event time to go and its watermark %s", s.Stream, ms(need), how)
		}
	}
	return e.eta(worst, why)
}

// ifSilent is when the window fires if the streams short of it send nothing
// more: once each is idle (idle_timeout after its last reading) it stops holding
// the key back; if another active stream is past the window's end, that fires it,
// else every stream is idle and, in advance mode, their watermarks move on with
// the time elapsed.
func (e *Explanation) ifSilent(due int64, behind []*Stream) *ETA {
	c := e.stream
	if c.IdleTimeout <= 0 {
		return &ETA{Because: "its streams never go idle (idle_timeout 0), so only their readings move it"}
	}
	quiet := e.Now
	for _, s := range behind {
		at := e.Now + c.IdleTimeout
		if s.seen {
			at = watermark.AddSat(s.arrive, c.IdleTimeout)
		}
		quiet = max(quiet, at)
	}
	names := streamNames(behind)
	goes := fmt.Sprintf("once %s %s idle (idle_timeout %s after the last reading)", names, plural(len(behind), "goes", "go"), ms(c.IdleTimeout))
	for _, s := range e.Streams {
		if s.State == "active" && int64(s.Watermark) >= due {
			return e.eta(quiet-e.Now, fmt.Sprintf("%s, %s, already past the window's end, alone moves the watermark", goes, s.Stream))
		}
	}
	if c.IdleMode == watermark.Hold {
		for _, s := range e.Streams {
			if int64(s.Watermark) >= due {
				return e.eta(quiet-e.Now, goes+", every stream is idle and the highest watermark, "+s.Stream+"'s, is past the window's end")
			}
		}
		return &ETA{Because: goes + ", every stream is idle, and with idle_mode hold their watermarks stay: it waits for a reading"}
	}
	// Every stream is idle from quiet on, and the highest watermark fires it:
	// an idle stream's moves on from its last reading's with the time elapsed.
	reach := int64(math.MaxInt64)
	for _, s := range e.Streams {
		wm := int64(s.Watermark)
		switch {
		case wm == watermark.Min:
		case s.Idle:
			reach = min(reach, watermark.AddSat(e.Now, due-wm))
		case s.seen:
			reach = min(reach, watermark.AddSat(s.arrive, due-wm))
		}
	}
	if reach == math.MaxInt64 {
		return &ETA{Because: goes + ", every stream is idle, and none has a watermark to move on from"}
	}
	at := max(quiet, reach)
	return e.eta(at-e.Now, goes+", every stream is idle, and an idle stream's watermark moves on with the time elapsed")
}

// idleDrift is when a window of a key whose streams are all idle fires: in
// advance mode, when the highest of their watermarks, moving on with the time
// elapsed, reaches due.
func (e *Explanation) idleDrift(due int64) *ETA {
	if e.stream.IdleMode == watermark.Hold {
		return &ETA{Because: "every stream is idle, and with idle_mode hold their watermarks stay: it waits for a reading"}
	}
	wm := int64(e.Watermark)
	if wm == watermark.Min {
		return &ETA{Because: "no stream has a watermark yet"}
	}
	return e.eta(max(due-wm, 0), "every stream is idle, and the highest watermark moves on with the time elapsed")
}

func (e *Explanation) eta(in int64, because string) *ETA {
	in = max(in, 0)
	return &ETA{At: ptr(watermark.AddSat(e.Now, in)), InMS: ptr(in), Because: because}
}

func streamNames(ss []*Stream) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.Stream
	}
	return strings.Join(names, " and ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
