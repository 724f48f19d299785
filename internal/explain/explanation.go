package explain

import (
	"math"
	"strconv"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// Explanation is the reasoning about one key of one window definition. Times are
// ms since the epoch; a watermark before the first reading is null in JSON.
type Explanation struct {
	Device string `json:"device"`
	Window string `json:"window"`
	Key    string `json:"key"`
	Shape  string `json:"shape"`
	// AllowedLatenessMS is null when unknown (a data dir without its config).
	AllowedLatenessMS *int64 `json:"allowed_lateness_ms"`
	Now               int64  `json:"now,omitempty"`
	// State is "live" (the key's window actor runs), "saved" (read from the
	// store: a stopped data dir, a passivated key, one not restored yet) or
	// "none" (the key holds nothing).
	State   string `json:"state"`
	NoState string `json:"no_state,omitempty"` // why it holds nothing

	// Watermark is the key's combined watermark: what it has heard, moved on to
	// where its streams stand now.
	Watermark Time `json:"watermark"`
	// KeyWatermark is the watermark the key's windows fired on so far.
	KeyWatermark Time `json:"key_watermark"`
	// Combined says how Watermark comes from the streams: "lowest_active" (the
	// lowest of the active streams), "highest_idle" (every stream is idle), or
	// "none" (no stream state).
	Combined      string   `json:"combined"`
	ActiveStreams int      `json:"active_streams"`
	Streams       []Stream `json:"streams"`
	// HeldBackBy is the active stream with the lowest watermark, the one the
	// combined watermark waits for; empty when every stream is idle.
	HeldBackBy string   `json:"held_back_by,omitempty"`
	Windows    []Window `json:"windows"`
	Note       string   `json:"note,omitempty"`

	live        bool // on a running daemon
	streamKnown bool // the stream's watermark settings are known
	stream      watermark.Config
	hasAt       bool
}

// Stream is one stream that fed the key.
type Stream struct {
	Stream    string `json:"stream"`
	Watermark Time   `json:"watermark"`
	Idle      bool   `json:"idle"`
	// Aligned: it counts in the combined watermark. An active stream that came
	// back from idle below it is not aligned (catching up) until it reaches it.
	Aligned bool `json:"aligned"`
	// State is "active", "idle" or "catching_up".
	State           string   `json:"state"`
	MaxEventTime    *int64   `json:"max_event_time"`
	LastRecordAt    *int64   `json:"last_record_at"`
	LastRecordAgeMS *int64   `json:"last_record_age_ms,omitempty"`
	Speed           *float64 `json:"watermark_speed,omitempty"` // event time per processing time, lately
	HoldsBack       bool     `json:"holds_back"`

	seen        bool
	max, arrive int64
}

// Window is one window of the key, as open or as it would be.
type Window struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	// State is "pending" (not fired), "due" (the combined watermark passed its
	// end: it fires at the next watermark the key hears), "fired", or
	// "not_open" (asked for by event time, the key holds no such window).
	State   string              `json:"state"`
	Results int                 `json:"results"` // emitted so far
	Values  map[string]*float64 `json:"values,omitempty"`
	// FiresAt is the watermark that fires it: its max timestamp, end - 1.
	FiresAt int64 `json:"fires_at_watermark"`
	// AheadMS is how much event time the combined watermark has still to go.
	AheadMS *int64 `json:"event_time_ahead_ms,omitempty"`
	// PurgedAt is the watermark that purges it: end - 1 + allowed lateness.
	PurgedAt *int64 `json:"purged_at_watermark,omitempty"`
	WaitsFor *Wait  `json:"waits_for,omitempty"`
	// Why says it all in a sentence or a few, as edged explain writes it.
	Why string `json:"why"`

	values []windows.NamedValue
}

// Wait is what a pending window waits for.
type Wait struct {
	// Streams are the active streams short of FiresAt, lowest first; when every
	// stream is idle (AllIdle), all of them, any of which may move it.
	Streams []string `json:"streams"`
	AllIdle bool     `json:"all_idle,omitempty"`
	// Mark: the streams are punctuated; a watermark mark at or past FiresAt from
	// each moves them.
	Mark bool `json:"mark,omitempty"`
	// ReadingAtOrPast is the event time a reading from each must reach: the
	// window's end plus max_out_of_orderness.
	ReadingAtOrPast     *int64 `json:"reading_at_or_past,omitempty"`
	MaxOutOfOrdernessMS *int64 `json:"max_out_of_orderness_ms,omitempty"`
	IdleTimeoutMS       *int64 `json:"idle_timeout_ms,omitempty"`
	IdleMode            string `json:"idle_mode,omitempty"`
	// On a running daemon: when it fires if its streams go on as lately, and
	// if they fall silent from now on.
	AtCurrentRate *ETA `json:"at_current_rate,omitempty"`
	IfSilent      *ETA `json:"if_silent,omitempty"`
}

// ETA is an estimate of when a window fires, in processing time.
type ETA struct {
	At      *int64 `json:"at"` // null: not this way
	InMS    *int64 `json:"in_ms"`
	Because string `json:"because"`
}

// Time is a watermark or an event time in ms; watermark.Min (before the first
// reading) is null in JSON.
type Time int64

func (t Time) MarshalJSON() ([]byte, error) {
	if int64(t) == watermark.Min {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, int64(t), 10), nil
}

// The states of Explanation and Window.
const (
	Live    = "live"
	Saved   = "saved"
	None    = "none"
	Pending = "pending"
	Due     = "due"
	Fired   = "fired"
	NotOpen = "not_open"
)

// valueMap is a window's values for JSON: NaN (no value yet) is null.
func valueMap(vs []windows.NamedValue) map[string]*float64 {
	if len(vs) == 0 {
		return nil
	}
	m := make(map[string]*float64, len(vs))
	for _, v := range vs {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			m[v.Name] = nil
			continue
		}
		x := v.Value
		m[v.Name] = &x
	}
	return m
}

func ptr[T any](v T) *T { return &v }
