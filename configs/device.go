package configs

import (
	"strings"
	"time"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// Device is one device file: the sensor streams of a device and the windows
// computed over them.
type Device struct {
	Path    string
	ID      string
	Streams []*Stream
	Windows []*Window
	Line    int // line of the `device:` field

	pos      positions
	unparsed bool // a syntax error was reported; nothing else is checked

}

// Stream returns the stream called name, or nil.
func (d *Device) Stream(name string) *Stream {
	for _, s := range d.Streams {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// WindowsOn returns the windows that read stream, in file order.
func (d *Device) WindowsOn(stream string) []*Window {
	var out []*Window
	for _, w := range d.Windows {
		if w.Stream == stream {
			out = append(out, w)
		}
	}
	return out
}

// Stream is one MQTT topic filter whose messages share a payload layout.
// Each concrete topic matching Topic is a separate stream at run time with its
// own watermark.
type Stream struct {
	Name      string
	Topic     string // MQTT filter; + and # allowed
	Format    string // "json"
	QoS       byte
	Timestamp Timestamp
	Key       Key
	Watermark Watermark
	Line      int // line of the stream's entry in its file

	wm     watermark.Config
	values []string
}

// Timestamp says where a payload keeps its event time.
type Timestamp struct {
	Field string // dotted path into the payload
	Unit  string // "s", "ms", "us", "ns" or "rfc3339"
}

// Key says where a record's key comes from: a payload field, a topic segment,
// or (neither set) the concrete topic.
type Key struct {
	Field        string
	TopicSegment int // 0-based level of the concrete topic; -1 = unset
}

// Watermark configures the per-stream watermark generator.
type Watermark struct {
	Strategy          string // "bounded", "monotonous" or "punctuated"
	Field             string // punctuated: payload field carrying the watermark in ms
	MaxOutOfOrderness time.Duration
	Interval          time.Duration // how often the source actor ticks the generator
	IdleTimeout       time.Duration // 0 = never idle
	IdleMode          string        // "advance" or "hold"
	MaxFutureSkew     time.Duration // 0 = guard off
}

// WatermarkConfig is the generator config; valid once the device validated.
func (s *Stream) WatermarkConfig() watermark.Config { return s.wm }

// Values lists the payload fields the windows on this stream aggregate, in
// first-seen order; valid once the device validated. Extraction produces
// values in this order.
func (s *Stream) Values() []string { return s.values }

// Window is one windowed aggregation over a stream, computed per key.
type Window struct {
	Name            string
	Stream          string
	Type            string // "tumbling", "sliding" or "session"
	Size            time.Duration
	Slide           time.Duration
	Gap             time.Duration
	Offset          time.Duration
	AllowedLateness time.Duration
	Accumulation    string        // "accumulating" or "discarding"
	Early           time.Duration // processing-time interval of early firings; 0 = none
	// PassivateAfter is how long a key's window actor stays once the key holds no
	// window and nothing uncommitted; then it stops until the key's next reading.
	PassivateAfter  time.Duration
	Aggregates      []string
	Output          Output
	Late            string // "upstream", "drop" or "topic:<mqtt topic>"
	UpstreamResults bool
	Line            int // line of the window's entry in its file

	op windows.OperatorConfig
}

// Length is the window's size, or its gap for a session window.
func (w *Window) Length() time.Duration {
	if w.Type == "session" {
		return w.Gap
	}
	return w.Size
}

// Operator is the window operator config; valid once the device validated.
func (w *Window) Operator() windows.OperatorConfig { return w.op }

// LateTopic returns the local topic too-late records go to, if Late names one.
func (w *Window) LateTopic() (string, bool) {
	topic, ok := strings.CutPrefix(w.Late, lateTopicPrefix)
	return topic, ok && topic != ""
}

// Output is where results are published locally.
type Output struct {
	Topic string // template with {device}, {window}, {key}; "" = not published locally
	QoS   byte
}

// How a window's firings relate (Window.Accumulation).
const (
	Accumulating = "accumulating" // each firing carries the whole window
	Discarding   = "discarding"   // each firing carries what arrived since the previous one
)

// Where too-late records of a window go.
const (
	LateUpstream    = "upstream"
	LateDrop        = "drop"
	lateTopicPrefix = "topic:"
)
