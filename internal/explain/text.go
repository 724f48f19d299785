package explain

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// Write writes the explanation in plain words, as `edged explain` prints it.
func Write(w io.Writer, e *Explanation) {
	fmt.Fprintf(w, "window %s of device %s, key %q: %s", e.Window, e.Device, e.Key, e.Shape)
	if e.AllowedLatenessMS != nil {
		fmt.Fprintf(w, ", allowed lateness %s\n", ms(*e.AllowedLatenessMS))
	} else {
		fmt.Fprint(w, ", allowed lateness unknown (give --config)\n")
	}
	if e.State == None {
		fmt.Fprintf(w, "no state for this key: %s\n", e.NoState)
		return
	}
	e.writeValve(w)
	if e.Note != "" {
		fmt.Fprintf(w, "\n%s\n", e.Note)
	}
	for i := range e.Windows {
		x := &e.Windows[i]
		fmt.Fprintf(w, "\n[%s, %s) %s\n", showTS(x.Start), showTS(x.End), x.Why)
	}
	if !e.live {
		fmt.Fprint(w, "\nLate counts are metrics of a running edged (edged_late_total), not kept in the data dir.\n")
	}
}

// writeValve describes the combined watermark and the streams it comes from.
func (e *Explanation) writeValve(w io.Writer) {
	fmt.Fprintf(w, "combined watermark %s", showTS(int64(e.Watermark)))
	switch e.Combined {
	case "none":
		fmt.Fprint(w, " (no stream state saved for this key)\n")
	case "highest_idle":
		fmt.Fprintf(w, ": every one of its %d stream(s) is idle, so it is the highest of them\n", len(e.Streams))
	default:
		fmt.Fprintf(w, ": the lowest of its %d active stream(s) (of %d that fed this key)\n", e.ActiveStreams, len(e.Streams))
	}
	if e.Watermark != e.KeyWatermark {
		if e.State == Live {
			fmt.Fprintf(w, "  (the key's windows fired on %s so far; its streams have moved on since)\n", showTS(int64(e.KeyWatermark)))
		} else {
			fmt.Fprintf(w, "  (saved with the key's last firing: %s; the streams have moved on since)\n", showTS(int64(e.KeyWatermark)))
		}
	}
	for _, s := range e.Streams {
		state := "active"
		switch s.State {
		case "idle":
			state = "idle"
		case "catching_up":
			state = "active, catching up (below the combined watermark, so not holding it back)"
		}
		fmt.Fprintf(w, "  %s: watermark %s, %s", s.Stream, showTS(int64(s.Watermark)), state)
		if s.seen {
			fmt.Fprintf(w, ", max event time %s, last reading arrived %s", showTS(s.max), showTS(s.arrive))
			if s.LastRecordAgeMS != nil {
				fmt.Fprintf(w, " (%s ago)", ms(*s.LastRecordAgeMS))
			}
		}
		if s.Speed != nil {
			fmt.Fprintf(w, ", its watermark moving %.2f× as fast as the clock lately", *s.Speed)
		}
		if s.HoldsBack && e.ActiveStreams > 1 {
			fmt.Fprint(w, "  <- holds it back")
		}
		fmt.Fprintln(w)
	}
}

// writeWindow says why one window has or has not fired, without its bounds.
func (e *Explanation) writeWindow(w io.Writer, x *Window) {
	switch x.State {
	case NotOpen:
		e.writeClosed(w, x)
	case Pending, Due:
		e.writePending(w, x)
	default:
		e.writeFired(w, x)
	}
}

func (e *Explanation) writePending(w io.Writer, x *Window) {
	due := x.FiresAt
	if x.State == Due {
		when := "at the next watermark after a restart"
		if e.live {
			when = "at the next watermark the key hears"
		}
		fmt.Fprintf(w, "has not fired, though the combined watermark passed %s: it fires %s\n", showTS(due), when)
		return
	}
	if x.Results > 0 {
		fmt.Fprintf(w, "has not fired on time (%d early result(s) so far; now %s): ", x.Results, ShowValues(x.values))
	} else {
		fmt.Fprint(w, "has not fired: ")
	}
	fmt.Fprintf(w, "it fires when the combined watermark reaches %s", showTS(due))
	if x.AheadMS != nil {
		fmt.Fprintf(w, ", %s of event time ahead of it now", ms(*x.AheadMS))
	}
	fmt.Fprintln(w)
	wt := x.WaitsFor
	if wt == nil {
		return
	}
	names := strings.Join(wt.Streams, " and ")
	if wt.AllIdle {
		e.writeAllIdle(w, x, names)
		return
	}
	fmt.Fprintf(w, "  it waits for %s", names)
	if !e.streamKnown {
		fmt.Fprint(w, " (give --config for its bound and idle timeout)\n")
		return
	}
	if wt.Mark {
		fmt.Fprintf(w, ": a watermark mark at or past %s from each\n", showTS(due))
	} else {
		fmt.Fprintf(w, ": a reading from each with event time at or past %s (the window end plus max_out_of_orderness %s)\n",
			showTS(*wt.ReadingAtOrPast), ms(*wt.MaxOutOfOrdernessMS))
	}
	if t := *wt.IdleTimeoutMS; t > 0 {
		how := "an idle stream's watermark moves on with the time elapsed, so the window fires"
		if e.stream.IdleMode == watermark.Hold {
			how = "an idle stream then stops holding back keys that other streams feed, but its own windows wait for its next reading (idle_mode hold)"
		}
		from := "the restart"
		if e.live {
			from = "each one's last reading"
		}
		fmt.Fprintf(w, "  or for %s of silence from each (idle_timeout, counted from %s): %s\n", ms(t), from, how)
	} else {
		fmt.Fprint(w, "  streams never go idle (idle_timeout 0), so only their readings move it\n")
	}
	writeETA(w, "at the current rate", wt.AtCurrentRate)
	writeETA(w, "if they fall silent now", wt.IfSilent)
}

func (e *Explanation) writeAllIdle(w io.Writer, x *Window, names string) {
	wt := x.WaitsFor
	fmt.Fprintf(w, "  every stream that fed it is idle (%s)", names)
	switch {
	case !e.streamKnown:
		fmt.Fprint(w, " (give --config for their bound and idle mode)\n")
	case e.stream.IdleMode == watermark.Hold:
		what := "a watermark mark at or past " + showTS(x.FiresAt)
		if !wt.Mark {
			what = "a reading with event time at or past " + showTS(*wt.ReadingAtOrPast)
		}
		fmt.Fprintf(w, ": with idle_mode hold their watermarks stay, so it waits for %s from one of them\n", what)
	default:
		fmt.Fprint(w, ": an idle stream's watermark moves on with the time elapsed, so it fires once the highest of them gets there\n")
	}
	writeETA(w, "at the current rate", wt.AtCurrentRate)
}

func writeETA(w io.Writer, how string, t *ETA) {
	switch {
	case t == nil:
	case t.At == nil:
		fmt.Fprintf(w, "  %s it does not fire: %s\n", how, t.Because)
	default:
		fmt.Fprintf(w, "  %s it fires in about %s, at %s: %s\n", how, ms(*t.InMS), showTS(*t.At), t.Because)
	}
}

func (e *Explanation) writeFired(w io.Writer, x *Window) {
	fmt.Fprintf(w, "fired: %d result(s) so far (the on-time one and %d late update(s)); now %s\n", x.Results, x.Results-1, ShowValues(x.values))
	if x.PurgedAt == nil {
		fmt.Fprint(w, "  it takes late readings until its allowed lateness is over (give --config for when)\n")
		return
	}
	fmt.Fprintf(w, "  it takes late readings, re-firing with each, until the combined watermark reaches %s (%s from now); then it is purged and later readings go to the late output\n",
		showTS(*x.PurgedAt), ms(*x.PurgedAt-int64(e.Watermark)))
}

func (e *Explanation) writeClosed(w io.Writer, x *Window) {
	due, wm := x.FiresAt, int64(e.Watermark)
	switch {
	case wm < due:
		fmt.Fprintf(w, "is not open: the key has no reading in it yet; it opens with the first and fires when the combined watermark reaches %s\n", showTS(due))
	case x.PurgedAt == nil:
		fmt.Fprintf(w, "is not open and the combined watermark is past its end: it fired and was purged, or never had a reading (give --config to know if a reading for it now is too late)\n")
	case wm >= *x.PurgedAt:
		fmt.Fprintf(w, "is not open: the combined watermark is past its end and its allowed lateness (%s), so it fired and was purged, or never had a reading; a reading for it now is too late and goes to the late output\n",
			showTS(*x.PurgedAt))
	default:
		fmt.Fprintf(w, "is not open, yet within its allowed lateness: a reading for it now opens it and fires it at once as a late result\n")
	}
}

// ShowValues shows a window's values as name=value pairs; null for none yet.
func ShowValues(vs []windows.NamedValue) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		if math.IsNaN(v.Value) {
			parts[i] = v.Name + "=null"
		} else {
			parts[i] = fmt.Sprintf("%s=%g", v.Name, v.Value)
		}
	}
	return strings.Join(parts, " ")
}

// showTS shows an instant in ms as UTC time, with the ms.
func showTS(v int64) string {
	switch v {
	case watermark.Min:
		return "none yet"
	case math.MaxInt64:
		return "+∞ (end of input)"
	}
	return fmt.Sprintf("%s (%d)", time.UnixMilli(v).UTC().Format("2006-01-02T15:04:05.000Z"), v)
}
