package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// explainInput is what edged explain knows about one window of one key.
type explainInput struct {
	device, window, key string
	def                 actors.WindowDef
	state               *persist.DeviceState
	at                  int64 // event time whose windows to explain, if hasAt
	hasAt               bool
	lateness            int64 // ms, if hasLateness (from the config)
	hasLateness         bool
	stream              *configs.Stream // the window's stream, if the config was given
}

// openWindow is a window the key holds in the state.
type openWindow struct {
	w      windows.Window
	fired  int // results emitted so far
	values string
}

// explain writes, in plain words, why each chosen window of the key has or
// has not fired.
func explain(w io.Writer, in *explainInput) error {
	fmt.Fprintf(w, "window %s of device %s, key %q: %s", in.window, in.device, in.key, shape(in.def))
	if in.hasLateness {
		fmt.Fprintf(w, ", allowed lateness %s\n", ms(in.lateness))
	} else {
		fmt.Fprint(w, ", allowed lateness unknown (give --config)\n")
	}
	var ks *persist.KeyState
	for i := range in.state.Keys {
		if k := &in.state.Keys[i]; k.Window == in.window && k.Key == in.key {
			ks = k
		}
	}
	if ks == nil {
		fmt.Fprintf(w, "no state for this key: it has no open window (it never had a reading here, or every window it had fired and was purged)\n")
		return nil
	}
	open, err := openWindows(in, ks)
	if err != nil {
		return err
	}
	inputs, wm := explainValve(w, in, ks)

	var chosen []windows.Window
	switch {
	case in.hasAt && in.def.Type != "session":
		chosen = assigner(in.def).Assign(in.at, nil)
	case in.hasAt:
		for _, o := range open {
			if o.w.Start <= in.at && in.at < o.w.End {
				chosen = append(chosen, o.w)
			}
		}
		if len(chosen) == 0 {
			fmt.Fprintf(w, "\nno open session of this key holds %s\n", showTS(in.at))
		}
	default:
		for _, o := range open {
			chosen = append(chosen, o.w)
		}
		if len(chosen) == 0 {
			fmt.Fprint(w, "\nthe key has no open window\n")
		}
	}
	for _, win := range chosen {
		i := slices.IndexFunc(open, func(o openWindow) bool { return o.w == win })
		fmt.Fprintf(w, "\n[%s, %s) ", showTS(win.Start), showTS(win.End))
		if i < 0 {
			explainClosed(w, in, win, wm)
			continue
		}
		o := open[i]
		if o.fired == 0 {
			explainPending(w, in, win, wm, inputs)
		} else {
			explainFired(w, in, o, wm)
		}
	}
	fmt.Fprint(w, "\nLate counts are metrics of a running edged (edged_late_total), not kept in the data dir.\n")
	return nil
}

// explainValve describes the combined watermark and its inputs, and returns
// the inputs as the key will see them and the combined watermark. The
// valve is saved only with the firings it causes, the streams' states more
// often, so each input counts with the higher of the two: what the key sees
// once the streams report after a restart.
func explainValve(w io.Writer, in *explainInput, ks *persist.KeyState) ([]watermark.ValveInput, int64) {
	inputs := slices.Clone(ks.Valve)
	holder, lowest, active, highest := "", int64(math.MaxInt64), 0, watermark.Min
	for i := range inputs {
		v := &inputs[i]
		if g, ok := in.state.Streams[v.Input]; ok {
			v.Watermark, v.Idle = max(v.Watermark, g.Watermark), g.Idle
		}
		highest = max(highest, v.Watermark)
		if v.Aligned && !v.Idle {
			active++
			if v.Watermark < lowest {
				holder, lowest = v.Input, v.Watermark
			}
		}
	}
	wm := ks.Watermark
	switch {
	case active > 0:
		wm = max(wm, lowest)
	case len(inputs) > 0:
		wm = max(wm, highest)
	}
	fmt.Fprintf(w, "combined watermark %s", showTS(wm))
	switch {
	case len(inputs) == 0:
		fmt.Fprint(w, " (no stream state saved for this key)\n")
	case active == 0:
		fmt.Fprintf(w, ": every one of its %d stream(s) is idle, so it is the highest of them\n", len(inputs))
	default:
		fmt.Fprintf(w, ": the lowest of its %d active stream(s) (of %d that fed this key)\n", active, len(inputs))
	}
	if wm != ks.Watermark {
		fmt.Fprintf(w, "  (saved with the key's last firing: %s; the streams have moved on since)\n", showTS(ks.Watermark))
	}
	for _, v := range inputs {
		state := "active"
		switch {
		case v.Idle:
			state = "idle"
		case !v.Aligned:
			state = "active, catching up (below the combined watermark, so not holding it back)"
		}
		fmt.Fprintf(w, "  %s: watermark %s, %s", v.Input, showTS(v.Watermark), state)
		if g, ok := in.state.Streams[v.Input]; ok && g.Seen {
			fmt.Fprintf(w, ", max event time %s, last reading arrived %s", showTS(g.Max), showTS(g.LastArrival))
		}
		if v.Input == holder && active > 1 {
			fmt.Fprint(w, "  <- holds it back")
		}
		fmt.Fprintln(w)
	}
	return inputs, wm
}

func explainPending(w io.Writer, in *explainInput, win windows.Window, wm int64, inputs []watermark.ValveInput) {
	due := win.MaxTimestamp()
	if wm >= due {
		fmt.Fprintf(w, "has not fired, though the combined watermark passed %s: it fires at the next watermark after a restart\n", showTS(due))
		return
	}
	fmt.Fprintf(w, "has not fired: it fires when the combined watermark reaches %s", showTS(due))
	if wm != watermark.Min {
		fmt.Fprintf(w, ", %s of event time ahead of it now", ms(due-wm))
	}
	fmt.Fprintln(w)
	var behind []string // the active streams whose watermark is short of due, lowest first
	slices.SortStableFunc(inputs, func(a, b watermark.ValveInput) int { return cmp.Compare(a.Watermark, b.Watermark) })
	for _, v := range inputs {
		if v.Aligned && !v.Idle && v.Watermark < due {
			behind = append(behind, v.Input)
		}
	}
	if len(behind) == 0 {
		return
	}
	fmt.Fprintf(w, "  it waits for %s", strings.Join(behind, " and "))
	s := in.stream
	if s == nil {
		fmt.Fprint(w, " (give --config for its bound and idle timeout)\n")
		return
	}
	wc := s.WatermarkConfig()
	switch wc.Strategy {
	case watermark.Punctuated:
		fmt.Fprintf(w, ": a watermark mark at or past %s from each\n", showTS(due))
	default:
		b := wc.MaxOutOfOrderness
		if wc.Strategy == watermark.Monotonous {
			b = 0
		}
		fmt.Fprintf(w, ": a reading from each with event time at or past %s (the window end plus max_out_of_orderness %s)\n", showTS(win.End+b), ms(b))
	}
	if wc.IdleTimeout > 0 {
		how := "an idle stream's watermark moves on with the time elapsed, so the window fires"
		if wc.IdleMode == watermark.Hold {
			how = "an idle stream then stops holding back keys that other streams feed, but its own windows wait for its next reading (idle_mode hold)"
		}
		fmt.Fprintf(w, "  or for %s of silence from each (idle_timeout, counted from the restart): %s\n", ms(wc.IdleTimeout), how)
	} else {
		fmt.Fprint(w, "  streams never go idle (idle_timeout 0), so only their readings move it\n")
	}
}

func explainFired(w io.Writer, in *explainInput, o openWindow, wm int64) {
	fmt.Fprintf(w, "fired: %d result(s) so far (the on-time one and %d late update(s)); now %s\n", o.fired, o.fired-1, o.values)
	if !in.hasLateness {
		fmt.Fprint(w, "  it takes late readings until its allowed lateness is over (give --config for when)\n")
		return
	}
	purge := watermark.AddSat(o.w.MaxTimestamp(), in.lateness)
	fmt.Fprintf(w, "  it takes late readings, re-firing with each, until the combined watermark reaches %s (%s from now); then it is purged and later readings go to the late output\n",
		showTS(purge), ms(purge-wm))
}

func explainClosed(w io.Writer, in *explainInput, win windows.Window, wm int64) {
	due := win.MaxTimestamp()
	switch {
	case wm < due:
		fmt.Fprintf(w, "is not open: the key has no reading in it yet; it opens with the first and fires when the combined watermark reaches %s\n", showTS(due))
	case !in.hasLateness:
		fmt.Fprintf(w, "is not open and the combined watermark is past its end: it fired and was purged, or never had a reading (give --config to know if a reading for it now is too late)\n")
	case wm >= watermark.AddSat(due, in.lateness):
		fmt.Fprintf(w, "is not open: the combined watermark is past its end and its allowed lateness (%s), so it fired and was purged, or never had a reading; a reading for it now is too late and goes to the late output\n",
			showTS(watermark.AddSat(due, in.lateness)))
	default:
		fmt.Fprintf(w, "is not open, yet within its allowed lateness: a reading for it now opens it and fires it at once as a late result\n")
	}
}

// openWindows decodes the key's saved windows.
func openWindows(in *explainInput, ks *persist.KeyState) ([]openWindow, error) {
	op, err := peekOperator(in.state.WindowDefs[in.window])
	if err != nil {
		return nil, err
	}
	var out []openWindow
	for _, saved := range ks.Windows {
		win, state, err := actors.DecodeSavedWindow(saved)
		if err == nil {
			err = op.Restore(in.key, win, state)
		}
		if err != nil {
			return nil, fmt.Errorf("window %s key %q: %w", in.window, in.key, err)
		}
		values, fired, ok := op.Peek(in.key, win)
		if !ok {
			continue // a gone session's tomb (windows/tombs.go), not a window
		}
		out = append(out, openWindow{w: win, fired: fired, values: showValues(values)})
	}
	return out, nil
}

func assigner(d actors.WindowDef) windows.Assigner {
	if d.Type == "sliding" {
		return windows.Sliding(d.Size, d.Slide, d.Offset)
	}
	return windows.Tumbling(d.Size, d.Offset)
}

func shape(d actors.WindowDef) string {
	s := fmt.Sprintf("%s %s", d.Type, ms(d.Size))
	switch d.Type {
	case "sliding":
		s += " every " + ms(d.Slide)
	case "session":
		s = "session, gap " + ms(d.Gap)
	}
	if d.Offset != 0 {
		s += ", offset " + ms(d.Offset)
	}
	return s + " (" + strings.Join(d.Aggregates, ", ") + ")"
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
