package mqtt

import (
	"fmt"
	"math"
	"strings"

	"github.com/valyala/fastjson"
)

// ValueKind says what a Value holds.
type ValueKind uint8

const (
	ValueMissing ValueKind = iota // the field is absent or null
	ValueNumber
	ValueString
)

// Value is one value field of a reading.
type Value struct {
	Num  float64
	Str  string
	Kind ValueKind
}

// ExtractSpec says where a stream's payloads carry event time, key and values.
// Paths are dotted ("meta.ts"); a numeric segment indexes an array ("v.0").
type ExtractSpec struct {
	Timestamp string // path of the event time
	Unit      Unit
	// MinTimestamp (ms) rejects readings before it: a timestamp in the wrong
	// unit usually lands decades in the past. 0 means 2000-01-01T00:00:00Z.
	MinTimestamp int64
	KeyField     string // path of the key; "" = none
	KeySegment   int    // topic segment (from 0) used as the key when KeyField is ""; -1 = none
	// MaxKeyBytes rejects a key from KeyField or KeySegment longer than it (the
	// store and result topics bound keys); 0 = no bound. A key that is the whole
	// topic is bounded where topics are.
	MaxKeyBytes int
	Values      []string
	// WatermarkField is the path of a punctuation marker ("" = none); it is in
	// the same Unit as Timestamp.
	WatermarkField string
}

// Reading is what one payload says. Values are aligned with ExtractSpec.Values.
// The flags are last, in one word: each source actor keeps a Reading.
type Reading struct {
	TS           int64 // event time, ms; valid when HasTS
	Key          string
	Values       []Value
	Watermark    int64 // ms; valid when HasWatermark
	HasTS        bool
	HasWatermark bool
}

const (
	defaultMinTimestamp int64 = 946684800000    // 2000-01-01T00:00:00Z
	maxEventTime        int64 = 253402300799999 // 9999-12-31T23:59:59.999Z: keeps window arithmetic far from overflow
)

// Extractor turns payloads into Readings following an ExtractSpec. It reuses
// its buffers, so it is not safe for concurrent use: each source actor owns one,
// a Fork of its stream's.
type Extractor struct {
	*compiledSpec
	raw  []byte // scratch for a number's text
	strs interner
}

// compiledSpec is what an Extractor reads of its spec, shared by its forks: a gateway
// has thousands of sources of a handful of stream definitions.
type compiledSpec struct {
	spec     ExtractSpec
	tsPath   []string
	keyPath  []string
	wmPath   []string
	valPaths [][]string
	minTS    int64
}

// NewExtractor returns an Extractor for spec.
func NewExtractor(spec ExtractSpec) *Extractor {
	c := &compiledSpec{spec: spec, minTS: spec.MinTimestamp}
	if c.minTS == 0 {
		c.minTS = defaultMinTimestamp
	}
	c.tsPath = splitPath(spec.Timestamp)
	if spec.KeyField != "" {
		c.keyPath = splitPath(spec.KeyField)
	}
	if spec.WatermarkField != "" {
		c.wmPath = splitPath(spec.WatermarkField)
	}
	for _, v := range spec.Values {
		c.valPaths = append(c.valPaths, splitPath(v))
	}
	return &Extractor{compiledSpec: c}
}

// Fork returns an Extractor of the same spec with buffers of its own, for use
// concurrently with e. It is a value, so an owner of thousands (a source actor per
// topic) can hold it in its own allocation.
func (e *Extractor) Fork() Extractor { return Extractor{compiledSpec: e.compiledSpec} }

func splitPath(p string) []string { return strings.Split(p, ".") }

// parsers are shared by every Extractor.
var parsers fastjson.ParserPool

// Extract decodes payload, published on topic, into r (reusing r.Values).
//
// The payload must be a JSON object. The event time is a number in the
// configured unit (fractions allowed, floored to the millisecond), a string
// holding such a number (devices that quote their timestamps), or, for unit
// rfc3339, an RFC 3339 string. It must lie between MinTimestamp and year
// 9999. A payload carrying the watermark field and no timestamp is a
// punctuation marker: r.HasTS is false, r.HasWatermark true, and neither key
// nor values are read. Value fields: a number is a number, a bool is 1 or 0, a
// string is a string, absent or null is ValueMissing; anything else is an
// error. Every failure is a *DecodeError; no input makes Extract panic.
func (e *Extractor) Extract(topic string, payload []byte, r *Reading) error {
	*r = Reading{Values: r.Values[:0]}
	// The parser comes from a pool rather than living in the Extractor: its value
	// cache is ~500 bytes, and a gateway has thousands of sources, most of them idle
	// between readings. Nothing in r points into it (strings are interned copies).
	p := parsers.Get()
	defer parsers.Put(p)
	root, err := p.ParseBytes(payload)
	if err != nil {
		return decodeErr("payload is not JSON: %s", strings.TrimPrefix(err.Error(), "cannot parse JSON: "))
	}
	if root.Type() != fastjson.TypeObject {
		return decodeErr("payload is a JSON %s, not an object", root.Type())
	}
	if e.wmPath != nil {
		if v := root.Get(e.wmPath...); present(v) {
			wm, err := e.eventTime("watermark", e.spec.WatermarkField, v)
			if err != nil {
				return err
			}
			r.Watermark, r.HasWatermark = wm, true
		}
	}
	tv := root.Get(e.tsPath...)
	if !present(tv) && r.HasWatermark {
		return nil
	}
	if r.TS, err = e.eventTime("timestamp", e.spec.Timestamp, tv); err != nil {
		return err
	}
	r.HasTS = true
	if r.Key, err = e.key(topic, root); err != nil {
		return err
	}
	for i, path := range e.valPaths {
		v, err := e.value(e.spec.Values[i], root.Get(path...))
		if err != nil {
			return err
		}
		r.Values = append(r.Values, v)
	}
	return nil
}

func present(v *fastjson.Value) bool { return v != nil && v.Type() != fastjson.TypeNull }

// eventTime converts the value of a timestamp or watermark field to ms.
func (e *Extractor) eventTime(kind, field string, v *fastjson.Value) (int64, error) {
	if !present(v) {
		return 0, fieldErr(kind, field, "missing")
	}
	unit := e.spec.Unit
	if unit == RFC3339 {
		return e.rfc3339Time(kind, field, v)
	}
	var raw []byte
	switch v.Type() {
	case fastjson.TypeNumber:
		e.raw = v.MarshalTo(e.raw[:0])
		raw = e.raw
	case fastjson.TypeString:
		raw, _ = v.StringBytes()
	default:
		return 0, fieldErr(kind, field, "expected a number of %s, got %s", unit, v.Type())
	}
	ms, st := scaleDecimal(raw, unit.msShift())
	switch st {
	case decimalSyntax:
		return 0, fieldErr(kind, field, "%q is not a number", raw)
	case decimalRange:
		return 0, fieldErr(kind, field, "%s %s is out of range", raw, unit)
	}
	if ms < e.minTS {
		return 0, fieldErr(kind, field, "%s %s is before %s%s", raw, unit, formatMillis(e.minTS), e.unitHint(raw))
	}
	if ms > maxEventTime {
		return 0, fieldErr(kind, field, "%s %s is after %s%s", raw, unit, formatMillis(maxEventTime), e.unitHint(raw))
	}
	return ms, nil
}

// unitHint suggests the numeric unit that would make raw a plausible time.
func (e *Extractor) unitHint(raw []byte) string {
	for _, u := range [...]Unit{Seconds, Millis, Micros, Nanos} {
		if u == e.spec.Unit {
			continue
		}
		if ms, st := scaleDecimal(raw, u.msShift()); st == decimalOK && ms >= e.minTS && ms <= maxEventTime {
			return " (is the unit " + u.String() + "?)"
		}
	}
	return ""
}

func (e *Extractor) key(topic string, root *fastjson.Value) (string, error) {
	switch {
	case e.keyPath != nil:
		field := e.spec.KeyField
		v := root.Get(e.keyPath...)
		if !present(v) {
			return "", fieldErr("key", field, "missing")
		}
		switch v.Type() {
		case fastjson.TypeString:
			b, _ := v.StringBytes()
			if len(b) == 0 {
				return "", fieldErr("key", field, "empty")
			}
			if long := e.tooLong(len(b)); long != "" {
				return "", fieldErr("key", field, "%s", long)
			}
			return e.strs.intern(b), nil
		case fastjson.TypeNumber:
			e.raw = v.MarshalTo(e.raw[:0])
			if long := e.tooLong(len(e.raw)); long != "" {
				return "", fieldErr("key", field, "%s", long)
			}
			return e.strs.intern(e.raw), nil
		case fastjson.TypeTrue:
			return "true", nil
		case fastjson.TypeFalse:
			return "false", nil
		}
		return "", fieldErr("key", field, "expected a string or number, got %s", v.Type())
	case e.spec.KeySegment >= 0:
		seg, ok := topicSegment(topic, e.spec.KeySegment)
		if !ok {
			return "", &DecodeError{Field: "topic", Reason: fmt.Sprintf("topic %q has no segment %d to take the key from", topic, e.spec.KeySegment)}
		}
		if seg == "" {
			return "", &DecodeError{Field: "topic", Reason: fmt.Sprintf("segment %d of topic %q is empty", e.spec.KeySegment, topic)}
		}
		if long := e.tooLong(len(seg)); long != "" {
			return "", &DecodeError{Field: "topic", Reason: fmt.Sprintf("segment %d of topic %s is %s", e.spec.KeySegment, quoteClipped(topic), long)}
		}
		return seg, nil
	}
	return topic, nil
}

// quoteClipped quotes s, cut to its first 100 bytes if longer: an error message
// must not carry a 64 KB topic.
func quoteClipped(s string) string {
	if len(s) > 100 {
		return fmt.Sprintf("%q...", s[:100])
	}
	return fmt.Sprintf("%q", s)
}

// tooLong says why a key of n bytes is refused, or "" when MaxKeyBytes allows it.
func (e *Extractor) tooLong(n int) string {
	if e.spec.MaxKeyBytes <= 0 || n <= e.spec.MaxKeyBytes {
		return ""
	}
	return fmt.Sprintf("%d bytes, longer than the %d allowed (limits.max_key_bytes)", n, e.spec.MaxKeyBytes)
}

func (e *Extractor) value(field string, v *fastjson.Value) (Value, error) {
	if !present(v) {
		return Value{}, nil
	}
	switch v.Type() {
	case fastjson.TypeNumber:
		f, err := v.Float64()
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			e.raw = v.MarshalTo(e.raw[:0])
			return Value{}, fieldErr("value", field, "%s is not a finite number", e.raw)
		}
		return Value{Num: f, Kind: ValueNumber}, nil
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		return Value{Str: e.strs.intern(b), Kind: ValueString}, nil
	case fastjson.TypeTrue:
		return Value{Num: 1, Kind: ValueNumber}, nil
	case fastjson.TypeFalse:
		return Value{Num: 0, Kind: ValueNumber}, nil
	}
	return Value{}, fieldErr("value", field, "expected a number, string or bool, got %s", v.Type())
}

// topicSegment returns the n-th '/'-separated segment of topic.
func topicSegment(topic string, n int) (string, bool) {
	for i := 0; i < n; i++ {
		j := strings.IndexByte(topic, '/')
		if j < 0 {
			return "", false
		}
		topic = topic[j+1:]
	}
	if j := strings.IndexByte(topic, '/'); j >= 0 {
		topic = topic[:j]
	}
	return topic, true
}
