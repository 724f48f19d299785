package configs

import (
	"slices"
	"strings"
	"time"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// Validate checks one device file on its own, collecting all problems, and
// builds its watermark and operator configs. It returns Errors, or nil.
// Checks that need the daemon file (unique ids, an upstream for
// upstream_results) are done by Daemon.Validate.
func (d *Device) Validate() error {
	var errs Errors
	d.validate(&errs)
	return errs.err()
}

func (d *Device) validate(errs *Errors) *report {
	r := newReport(d.Path, d.pos, errs)
	if d.unparsed {
		return r
	}
	r.name("device", d.ID)
	if len(d.Streams) == 0 {
		r.at("streams", "a device needs at least one stream")
	}
	seenStreams := map[string]int{}
	for i, s := range d.Streams {
		p := index("streams", i)
		r.unique(seenStreams, join(p, "name"), "stream", s.Name, s.Line)
		validateStream(r, p, s)
	}
	seenWindows := map[string]int{}
	for i, w := range d.Windows {
		p := index("windows", i)
		r.unique(seenWindows, join(p, "name"), "window", w.Name, w.Line)
		d.validateWindow(r, p, w)
	}
	for _, s := range d.Streams {
		s.values = nil
		for _, w := range d.WindowsOn(s.Name) {
			if w.op.Aggregates == nil {
				continue
			}
			for _, f := range w.op.Aggregates.Fields() {
				if !slices.Contains(s.values, f) {
					s.values = append(s.values, f)
				}
			}
		}
	}
	return r
}

func validateStream(r *report, p string, s *Stream) {
	r.name(join(p, "name"), s.Name)
	levels, multi, filterOK := r.filter(join(p, "topic"), s.Topic)
	r.oneOf(join(p, "format"), s.Format, "json")
	r.qosValue(join(p, "qos"), s.QoS)
	r.fieldPath(join(p, "timestamp.field"), s.Timestamp.Field)
	if r.required(join(p, "timestamp.unit"), s.Timestamp.Unit) {
		r.oneOf(join(p, "timestamp.unit"), s.Timestamp.Unit, "s", "ms", "us", "ns", "rfc3339")
	}

	switch k := s.Key; {
	case k.Field != "" && k.TopicSegment >= 0:
		r.at(join(p, "key"), "set either field or topic_segment, not both")
	case k.Field != "":
		r.fieldPath(join(p, "key.field"), k.Field)
	case k.TopicSegment < -1:
		r.at(join(p, "key.topic_segment"), "must not be negative, got %d", k.TopicSegment)
	case k.TopicSegment >= levels && filterOK && !multi:
		r.at(join(p, "key.topic_segment"), "is %d but the topic %q has only levels 0 to %d", k.TopicSegment, s.Topic, levels-1)
	}

	wm := s.Watermark
	wp := join(p, "watermark")
	strategy, strategyErr := watermark.ParseStrategy(wm.Strategy)
	if strategyErr != nil {
		r.at(join(wp, "strategy"), "%v", strategyErr)
	}
	mode, err := watermark.ParseIdleMode(wm.IdleMode)
	if err != nil {
		r.at(join(wp, "idle_mode"), "%v", err)
	}
	r.eventTime(join(wp, "max_out_of_orderness"), wm.MaxOutOfOrderness)
	if strategyErr == nil {
		if wm.MaxOutOfOrderness != 0 && strategy != watermark.Bounded {
			r.at(join(wp, "max_out_of_orderness"), "is only used by the bounded strategy, not %s", strategy)
		}
		if strategy == watermark.Punctuated {
			r.fieldPath(join(wp, "field"), wm.Field)
		} else if wm.Field != "" {
			r.at(join(wp, "field"), "is only used by the punctuated strategy, not %s", strategy)
		}
	}
	r.positive(join(wp, "interval"), wm.Interval)
	r.eventTime(join(wp, "idle_timeout"), wm.IdleTimeout)
	r.eventTime(join(wp, "max_future_skew"), wm.MaxFutureSkew)
	s.wm = watermark.Config{
		Strategy:          strategy,
		MaxOutOfOrderness: wm.MaxOutOfOrderness.Milliseconds(),
		IdleTimeout:       wm.IdleTimeout.Milliseconds(),
		IdleMode:          mode,
		MaxFutureSkew:     wm.MaxFutureSkew.Milliseconds(),
	}
}

func (d *Device) validateWindow(r *report, p string, w *Window) {
	r.name(join(p, "name"), w.Name)
	if r.required(join(p, "stream"), w.Stream) && d.Stream(w.Stream) == nil {
		r.at(join(p, "stream"), "no stream named %q in this device (streams: %s)", w.Stream, d.streamNames())
	}
	assigner := assigner(r, p, w)
	ok := assigner != nil
	ok = r.eventTime(join(p, "allowed_lateness"), w.AllowedLateness) && ok
	aggs := aggregates(r, join(p, "aggregates"), w.Aggregates)
	ok = aggs != nil && ok
	ok = r.oneOf(join(p, "accumulation"), w.Accumulation, Accumulating, Discarding) && ok
	ok = r.eventTime(join(p, "early"), w.Early) && ok
	r.eventTime(join(p, "passivate_after"), w.PassivateAfter)

	if w.Output.Topic != "" {
		r.template(join(p, "output.topic"), w.Output.Topic)
	}
	r.qosValue(join(p, "output.qos"), w.Output.QoS)
	if topic, isTopic := strings.CutPrefix(w.Late, lateTopicPrefix); isTopic {
		if topic == "" {
			r.at(join(p, "late"), "%q names no topic", w.Late)
		}
		r.topic(join(p, "late"), topic)
	} else {
		r.oneOf(join(p, "late"), w.Late, LateUpstream, LateDrop, lateTopicPrefix+"<mqtt topic>")
	}
	if ok {
		w.op = windows.OperatorConfig{Assigner: assigner, AllowedLateness: w.AllowedLateness.Milliseconds(), Aggregates: aggs,
			Discarding: w.Accumulation == Discarding, Early: w.Early.Milliseconds()}
	}
}

// assigner checks the durations a window type needs, rejects those it does
// not use, and builds its assigner; nil when something is wrong.
func assigner(r *report, p string, w *Window) windows.Assigner {
	durations := []struct {
		field string
		value time.Duration
		types []string // the window types that use it
	}{
		{"size", w.Size, []string{"tumbling", "sliding"}},
		{"slide", w.Slide, []string{"sliding"}},
		{"gap", w.Gap, []string{"session"}},
		{"offset", w.Offset, []string{"tumbling", "sliding"}},
	}
	if !r.required(join(p, "type"), w.Type) || !r.oneOf(join(p, "type"), w.Type, "tumbling", "sliding", "session") {
		return nil
	}
	ok := true
	for _, dur := range durations {
		fp := join(p, dur.field)
		switch {
		case !slices.Contains(dur.types, w.Type):
			if dur.value != 0 {
				r.at(fp, "is not used by a %s window", w.Type)
				ok = false
			}
		case dur.value == 0 && dur.field != "offset":
			r.at(fp, "is required for a %s window", w.Type)
			ok = false
		default:
			ok = r.eventTime(fp, dur.value) && ok
		}
	}
	if !ok {
		return nil
	}
	switch w.Type {
	case "tumbling":
		if w.Offset >= w.Size {
			r.at(join(p, "offset"), "must be less than size %v, got %v", w.Size, w.Offset)
			return nil
		}
		return windows.Tumbling(w.Size.Milliseconds(), w.Offset.Milliseconds())
	case "sliding":
		if w.Slide > w.Size {
			r.at(join(p, "slide"), "must not be larger than size %v, got %v", w.Size, w.Slide)
			return nil
		}
		if w.Offset >= w.Slide {
			r.at(join(p, "offset"), "must be less than slide %v, got %v", w.Slide, w.Offset)
			return nil
		}
		if n := w.WindowsPerRecord(); n > MaxWindowsPerRecord {
			r.at(join(p, "slide"), "size %v / slide %v puts every record in %d windows, more than %d: make the slide larger or the size smaller",
				w.Size, w.Slide, n, MaxWindowsPerRecord)
			return nil
		}
		return windows.Sliding(w.Size.Milliseconds(), w.Slide.Milliseconds(), w.Offset.Milliseconds())
	default:
		return windows.Session(w.Gap.Milliseconds())
	}
}

// aggregates parses each spec alone first so that a bad one is reported on
// its own line, then all together for problems between them.
func aggregates(r *report, p string, specs []string) *windows.Aggregates {
	if len(specs) == 0 {
		r.at(p, "a window needs at least one aggregate, such as count or avg(temp)")
		return nil
	}
	ok := true
	for i, s := range specs {
		if _, err := windows.ParseAggregates([]string{s}); err != nil {
			r.at(index(p, i), "%v", err)
			ok = false
		}
	}
	if !ok {
		return nil
	}
	aggs, err := windows.ParseAggregates(specs)
	if err != nil {
		r.at(p, "%v", err)
		return nil
	}
	return aggs
}

func (d *Device) streamNames() string {
	names := make([]string, len(d.Streams))
	for i, s := range d.Streams {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}
