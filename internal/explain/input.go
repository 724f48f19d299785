package explain

import (
	"fmt"
	"strings"
	"time"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// Input is what is known of one key of one window definition.
type Input struct {
	Device, Window, Key string
	Def                 Def
	// Lateness is the window's allowed lateness in ms; nil when unknown (a data dir
	// explained without its config).
	Lateness *int64
	// Stream is the watermark settings of the window's stream; nil when unknown.
	Stream *watermark.Config
	// State is the key's state; nil when it has none.
	State *KeyState
	// Streams is the latest state of the streams that fed the key, by concrete
	// topic: newer than the key's valve when the key has not heard from them since.
	Streams map[string]StreamState
	// At, if set, is an event time: explain the windows that hold it, open or not,
	// instead of every open window.
	At *int64
	// Now is the processing time (ms since the epoch) of a running daemon, which
	// the estimates of when a window fires count from; 0 for a stopped data dir.
	Now int64
}

// Def is the shape of a window definition, as its state is saved with it.
type Def struct {
	Type       string
	Size       int64
	Slide      int64
	Gap        int64
	Offset     int64
	Aggregates []string
}

// String describes the definition: "tumbling 5s (count, avg(temp))".
func (d Def) String() string {
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

func (d Def) assigner() windows.Assigner {
	if d.Type == "sliding" {
		return windows.Sliding(d.Size, d.Slide, d.Offset)
	}
	return windows.Tumbling(d.Size, d.Offset)
}

// KeyState is a key's windows and valve: a window actor's own, or as saved.
type KeyState struct {
	// Live: the state of the key's running window actor; else the saved state.
	Live bool
	// Watermark is the key's own watermark: the one its windows fired on.
	Watermark int64
	Valve     []watermark.ValveInput
	Windows   []OpenWindow // ascending by start
}

// OpenWindow is a window the key holds.
type OpenWindow struct {
	Window  windows.Window
	Results int // results emitted so far: the next one's revision
	Values  []windows.NamedValue
}

// StreamState is what is known of one stream now.
type StreamState struct {
	Watermark   int64
	Idle        bool
	Seen        bool  // it had a reading: Max and LastArrival are set
	Max         int64 // the highest event time it had
	LastArrival int64 // processing time of its last reading
	// Speed is how fast its watermark moved lately, in event time per processing
	// time (1: as fast as the clock); known only on a running daemon.
	Speed      float64
	SpeedKnown bool
}

// ms shows a duration in ms as Go does: "1.5s", "500ms".
func ms(v int64) string { return (time.Duration(v) * time.Millisecond).String() }
