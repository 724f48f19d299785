package actors

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// plan is a device config compiled for the actors.
type plan struct {
	device      *configs.Device
	streams     []streamPlan
	windows     []windowPlan
	minInterval int64 // the shortest watermark interval of the device's streams, ms
}

type streamPlan struct {
	cfg      *configs.Stream
	spec     mqtt.ExtractSpec
	ext      *mqtt.Extractor // of spec, only forked: each source decodes with a Fork
	wm       watermark.Config
	interval int64 // ms between periodic watermark emissions
	windows  []int // indexes into plan.windows
	// Where its windows' timers fall, if a status change that crosses none of them
	// may go unsent; nil: every change is sent (source_quiet_watermark.go).
	quiet []timerGrid
	// Whether its sources may skip the checks that have nothing to do: every source
	// tick is a check of the stream (source_sleep.go).
	sleeps bool
}

type windowPlan struct {
	index  int // in plan.windows
	cfg    *configs.Window
	op     windows.OperatorConfig
	stream int
	fields []int  // for each aggregate field, its index in the stream's values
	def    []byte // persisted descriptor: a restart with other aggregates must not reuse state
	topic  topicTemplate
	// soleFed: every key of the window is fed by one concrete topic only
	// (soleFeeder), so a key that comes back after passivation needs nothing saved.
	soleFed        bool
	passivateAfter int64 // ms; see pipeline_key_passivate.go
}

// compile builds the plan of device d; maxKeyBytes is limits.max_key_bytes.
func compile(d *configs.Device, maxKeyBytes int) (*plan, error) {
	p := &plan{device: d}
	for _, s := range d.Streams {
		spec, err := StreamSpec(s, maxKeyBytes)
		if err != nil {
			return nil, fmt.Errorf("device %s stream %s: %w", d.ID, s.Name, err)
		}
		p.streams = append(p.streams, streamPlan{
			cfg:      s,
			spec:     spec,
			ext:      mqtt.NewExtractor(spec),
			wm:       s.WatermarkConfig(),
			interval: max(s.Watermark.Interval.Milliseconds(), 1),
		})
	}
	for i, s := range p.streams {
		if i == 0 || s.interval < p.minInterval {
			p.minInterval = s.interval
		}
	}
	for wi, w := range d.Windows {
		si := -1
		for i, s := range d.Streams {
			if s.Name == w.Stream {
				si = i
			}
		}
		if si < 0 {
			return nil, fmt.Errorf("device %s window %s: unknown stream %q", d.ID, w.Name, w.Stream)
		}
		op := w.Operator()
		values := p.streams[si].spec.Values
		var fields []int
		for _, f := range op.Aggregates.Fields() {
			idx := -1
			for i, v := range values {
				if v == f {
					idx = i
				}
			}
			if idx < 0 {
				return nil, fmt.Errorf("device %s window %s: stream %s does not extract field %q", d.ID, w.Name, w.Stream, f)
			}
			fields = append(fields, idx)
		}
		def, _ := json.Marshal(WindowDef{w.Type, w.Size.Milliseconds(), w.Slide.Milliseconds(), w.Gap.Milliseconds(), w.Offset.Milliseconds(), w.Aggregates})
		p.windows = append(p.windows, windowPlan{index: wi, cfg: w, op: op, stream: si, fields: fields, def: def,
			topic: compileTopic(w.Output.Topic, d.ID, w.Name), soleFed: soleFeeder(d.Streams[si]),
			passivateAfter: w.PassivateAfter.Milliseconds()})
		p.streams[si].windows = append(p.streams[si].windows, wi)
	}
	for i := range p.streams {
		s := &p.streams[i]
		s.quiet = quietGrids(s.cfg, s.windows, p.windows)
		s.sleeps = s.interval == p.minInterval
	}
	return p, nil
}

// StreamSpec says how the payloads of stream s are read; maxKeyBytes is
// limits.max_key_bytes. Tools that read recordings (edged tune) read them as
// the source actors do.
func StreamSpec(s *configs.Stream, maxKeyBytes int) (mqtt.ExtractSpec, error) {
	unit, err := mqtt.ParseUnit(s.Timestamp.Unit)
	if err != nil {
		return mqtt.ExtractSpec{}, err
	}
	seg := s.Key.TopicSegment
	if s.Key.Field != "" {
		seg = -1
	}
	wmField := ""
	if s.WatermarkConfig().Strategy == watermark.Punctuated {
		wmField = s.Watermark.Field
	}
	return mqtt.ExtractSpec{
		Timestamp:      s.Timestamp.Field,
		Unit:           unit,
		KeyField:       s.Key.Field,
		KeySegment:     seg,
		MaxKeyBytes:    maxKeyBytes,
		Values:         s.Values(),
		WatermarkField: wmField,
	}, nil
}

// match returns the index of the first stream whose topic filter matches topic.
func (p *plan) match(topic string) int {
	for i, s := range p.streams {
		if mqtt.TopicMatch(s.cfg.Topic, topic) {
			return i
		}
	}
	return -1
}

// WindowDef is the descriptor saved with a window definition's state: a restart with
// another definition must not reuse the state, and tools decode the state with it.
type WindowDef struct {
	Type       string   `json:"type"`
	Size       int64    `json:"size_ms"`
	Slide      int64    `json:"slide_ms"`
	Gap        int64    `json:"gap_ms"`
	Offset     int64    `json:"offset_ms"`
	Aggregates []string `json:"aggregates"`
}

// ParseWindowDef reads a saved window definition.
func ParseWindowDef(b []byte) (WindowDef, error) {
	var d WindowDef
	if b == nil {
		return d, errors.New("the window definition was not saved")
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("reading the saved window definition %s: %w", b, err)
	}
	return d, nil
}
