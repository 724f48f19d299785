package actors

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/internal/escape"
	"github.com/edged/edged/windows"
)

// appendResult encodes a result record (docs/semantics.md, "Result record") with
// values in the order the window's aggregates were configured, so output is
// byte-stable.
func appendResult(b []byte, device, window string, r *windows.Result, emittedAt int64) []byte {
	b = append(b, `{"device":`...)
	b = appendString(b, device)
	b = append(b, `,"window":`...)
	b = appendString(b, window)
	b = append(b, `,"key":`...)
	b = appendString(b, r.Key)
	b = append(b, `,"start":`...)
	b = strconv.AppendInt(b, r.Window.Start, 10)
	b = append(b, `,"end":`...)
	b = strconv.AppendInt(b, r.Window.End, 10)
	b = append(b, `,"revision":`...)
	b = strconv.AppendInt(b, int64(r.Revision), 10)
	b = append(b, `,"kind":"`...)
	b = append(b, r.Kind.String()...)
	b = append(b, `","values":`...)
	if r.Kind == windows.Retract {
		b = append(b, `null,"merged_into":{"start":`...)
		b = strconv.AppendInt(b, r.MergedInto.Start, 10)
		b = append(b, `,"end":`...)
		b = strconv.AppendInt(b, r.MergedInto.End, 10)
	} else {
		b = append(b, '{')
		for i, v := range r.Values {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, v.Name)
			b = append(b, ':')
			b = appendFloat(b, v.Value)
		}
	}
	b = append(b, `},"watermark":`...)
	b = appendWatermark(b, r.Watermark) // null before the first watermark (an early firing)
	b = append(b, `,"emitted_at":`...)
	b = strconv.AppendInt(b, emittedAt, 10)
	return append(b, '}')
}

// lateRecord is the provenance of a record that missed its windows.
type lateRecord struct {
	Device, Stream, Window, Key string
	TS, Watermark, ReceivedAt   int64
	Missed                      []windows.Window
	Reason                      string // too_late | future | undecodable | key_limit
	Error                       string // why an undecodable payload was rejected
	Payload                     []byte
}

// appendLate encodes a late record without its id: the upstream actor prepends
// `"id":"<device>-<seq>"` when it ships the entry, once the outbox has assigned seq.
func appendLate(b []byte, l *lateRecord) []byte {
	b = append(b, `{"device":`...)
	b = appendString(b, l.Device)
	b = append(b, `,"stream":`...)
	b = appendString(b, l.Stream)
	if l.Window != "" {
		b = append(b, `,"window":`...)
		b = appendString(b, l.Window)
	}
	b = append(b, `,"key":`...)
	b = appendString(b, l.Key)
	b = append(b, `,"reason":"`...)
	b = append(b, l.Reason...)
	b = append(b, '"')
	if l.Reason != status.Undecodable {
		b = append(b, `,"ts":`...)
		b = strconv.AppendInt(b, l.TS, 10)
		b = append(b, `,"watermark":`...)
		b = appendWatermark(b, l.Watermark)
		b = append(b, `,"lateness_ms":`...)
		if l.Watermark == math.MinInt64 {
			b = append(b, '0')
		} else {
			b = strconv.AppendInt(b, l.Watermark-l.TS, 10)
		}
		b = append(b, `,"missed":[`...)
		for i, w := range l.Missed {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"start":`...)
			b = strconv.AppendInt(b, w.Start, 10)
			b = append(b, `,"end":`...)
			b = strconv.AppendInt(b, w.End, 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	} else {
		b = append(b, `,"error":`...)
		b = appendString(b, l.Error)
	}
	b = append(b, `,"received_at":`...)
	b = strconv.AppendInt(b, l.ReceivedAt, 10)
	b = append(b, `,"payload":`...)
	if json.Valid(l.Payload) {
		b = append(b, l.Payload...)
	} else {
		b = appendString(b, string(l.Payload))
	}
	return append(b, '}')
}

func appendWatermark(b []byte, wm int64) []byte {
	if wm == math.MinInt64 {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, wm, 10)
}

// appendFloat writes NaN and infinities (an empty aggregate) as null: JSON has no NaN.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendString quotes s as JSON (escape.AppendJSON, the quoting the replay
// files of internal/sim use too).
func appendString(b []byte, s string) []byte { return escape.AppendJSON(b, s) }
