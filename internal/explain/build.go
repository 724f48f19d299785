package explain

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// noState is why a key holds nothing.
const noState = "it has no open window (it never had a reading here, or every window it had fired and was purged)"

// Build reasons about in: the key's combined watermark and the streams behind it,
// and for each chosen window its state, what it waits for and, on a running
// daemon, when it fires.
func Build(in *Input) *Explanation {
	e := &Explanation{
		Device: in.Device, Window: in.Window, Key: in.Key, Shape: in.Def.String(),
		AllowedLatenessMS: in.Lateness, Now: in.Now,
		Watermark: Time(watermark.Min), KeyWatermark: Time(watermark.Min), Combined: "none",
		Streams: []Stream{}, Windows: []Window{},
		live: in.Now != 0, streamKnown: in.Stream != nil, hasAt: in.At != nil,
	}
	if in.Stream != nil {
		e.stream = *in.Stream
	}
	ks := in.State
	if ks == nil {
		e.State, e.NoState = None, noState
		return e
	}
	e.State = Saved
	if ks.Live {
		e.State = Live
	}
	e.combine(in)
	open := ks.Windows
	var chosen []windows.Window
	switch {
	case in.At != nil && in.Def.Type != "session":
		chosen = in.Def.assigner().Assign(*in.At, nil)
	case in.At != nil:
		for _, o := range open {
			if o.Window.Start <= *in.At && *in.At < o.Window.End {
				chosen = append(chosen, o.Window)
			}
		}
		if len(chosen) == 0 {
			e.Note = "no open session of this key holds " + showTS(*in.At)
		}
	default:
		for _, o := range open {
			chosen = append(chosen, o.Window)
		}
		if len(chosen) == 0 {
			e.Note = "the key has no open window"
		}
	}
	for _, win := range chosen {
		i := slices.IndexFunc(open, func(o OpenWindow) bool { return o.Window == win })
		var o *OpenWindow
		if i >= 0 {
			o = &open[i]
		}
		x := e.window(in, win, o)
		var b strings.Builder
		e.writeWindow(&b, &x)
		x.Why = strings.TrimSpace(b.String())
		e.Windows = append(e.Windows, x)
	}
	return e
}

// combine finds the key's combined watermark from its valve's inputs, each moved
// on to where its stream stands now: a valve is saved only with the firings it
// causes, and a live key hears a stream only when that may fire something, so the
// streams are ahead of it, and what they say is what the key sees next.
func (e *Explanation) combine(in *Input) {
	ks := in.State
	holder, lowest, highest := "", int64(math.MaxInt64), watermark.Min
	for _, v := range ks.Valve {
		s := Stream{Stream: v.Input, Aligned: v.Aligned}
		wm, idle := v.Watermark, v.Idle
		if g, ok := in.Streams[v.Input]; ok {
			wm, idle = max(wm, g.Watermark), g.Idle
			if g.Seen {
				s.seen, s.max, s.arrive = true, g.Max, g.LastArrival
				s.MaxEventTime, s.LastRecordAt = ptr(g.Max), ptr(g.LastArrival)
				if e.live {
					s.LastRecordAgeMS = ptr(max(in.Now-g.LastArrival, 0))
				}
			}
			if g.SpeedKnown {
				s.Speed = ptr(math.Round(g.Speed*1000) / 1000)
			}
		}
		s.Watermark, s.Idle = Time(wm), idle
		highest = max(highest, wm)
		switch {
		case idle:
			s.State = "idle"
		case !v.Aligned:
			s.State = "catching_up"
		default:
			s.State = "active"
			e.ActiveStreams++
			if wm < lowest {
				holder, lowest = v.Input, wm
			}
		}
		e.Streams = append(e.Streams, s)
	}
	wm := ks.Watermark
	switch {
	case e.ActiveStreams > 0:
		wm = max(wm, lowest)
		e.Combined, e.HeldBackBy = "lowest_active", holder
	case len(e.Streams) > 0:
		wm = max(wm, highest)
		e.Combined = "highest_idle"
	}
	for i := range e.Streams {
		e.Streams[i].HoldsBack = e.Streams[i].Stream == holder
	}
	e.Watermark, e.KeyWatermark = Time(wm), Time(ks.Watermark)
}

// window reasons about one window; o is nil if the key does not hold it.
func (e *Explanation) window(in *Input, win windows.Window, o *OpenWindow) Window {
	due := win.MaxTimestamp()
	x := Window{Start: win.Start, End: win.End, FiresAt: due}
	if in.Lateness != nil {
		x.PurgedAt = ptr(watermark.AddSat(due, *in.Lateness))
	}
	wm := int64(e.Watermark)
	if o == nil {
		x.State = NotOpen
		return x
	}
	x.Results, x.values, x.Values = o.Results, o.Values, valueMap(o.Values)
	switch {
	case o.Results > 0 && int64(e.KeyWatermark) >= due:
		x.State = Fired
		return x
	case wm >= due:
		x.State = Due
		return x
	}
	x.State = Pending
	if wm != watermark.Min {
		x.AheadMS = ptr(due - wm)
	}
	x.WaitsFor = e.waits(in, win)
	return x
}

// waits says what a pending window waits for: the active streams short of its
// end, lowest first, or, when every stream is idle, any of them.
func (e *Explanation) waits(in *Input, win windows.Window) *Wait {
	due := win.MaxTimestamp()
	byWatermark := slices.Clone(e.Streams)
	slices.SortStableFunc(byWatermark, func(a, b Stream) int { return cmp.Compare(a.Watermark, b.Watermark) })
	w := &Wait{}
	var behind []*Stream
	for i := range byWatermark {
		if s := &byWatermark[i]; s.State == "active" && int64(s.Watermark) < due {
			w.Streams = append(w.Streams, s.Stream)
			behind = append(behind, s)
		}
	}
	if len(w.Streams) == 0 {
		if e.ActiveStreams > 0 || len(e.Streams) == 0 {
			return nil
		}
		w.AllIdle = true
		for _, s := range e.Streams {
			w.Streams = append(w.Streams, s.Stream)
		}
	}
	if !e.streamKnown {
		return w
	}
	c := e.stream
	switch c.Strategy {
	case watermark.Punctuated:
		w.Mark = true
	default:
		b := c.MaxOutOfOrderness
		if c.Strategy == watermark.Monotonous {
			b = 0
		}
		w.ReadingAtOrPast, w.MaxOutOfOrdernessMS = ptr(watermark.AddSat(win.End, b)), ptr(b)
	}
	w.IdleTimeoutMS, w.IdleMode = ptr(c.IdleTimeout), c.IdleMode.String()
	if e.live {
		if w.AllIdle {
			w.AtCurrentRate = e.idleDrift(due)
		} else {
			w.AtCurrentRate = e.atCurrentRate(in, due, behind)
			w.IfSilent = e.ifSilent(due, behind)
		}
	}
	return w
}
