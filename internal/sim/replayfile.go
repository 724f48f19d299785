package sim

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

	"github.com/edged/edged/internal/escape"
)

// WriteReplay writes the whole feed in the replay format of `edged replay`,
// one `{"at":<send time>,"topic":..,"payload":{..}}` line per message, as fast
// as it can (no pacing). The feed must be bounded (Duration > 0).
func WriteReplay(w io.Writer, f *Feed) (Summary, error) {
	t := NewTally(f.cfg)
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	for {
		m, ok := f.Next()
		if !ok {
			break
		}
		line = AppendReplayLine(line[:0], m.At, m.Topic, m.Payload)
		if _, err := bw.Write(line); err != nil {
			return t.Summary(), err
		}
		t.Add(&m)
	}
	return t.Summary(), bw.Flush()
}

// AppendReplayLine appends one replay input line, newline included. A payload
// that is a JSON object or array is embedded as is; anything else becomes a
// JSON string of its bytes, which replay turns back into the same bytes.
func AppendReplayLine(b []byte, at int64, topic string, payload []byte) []byte {
	b = append(b, `{"at":`...)
	b = strconv.AppendInt(b, at, 10)
	b = append(b, `,"topic":`...)
	b = escape.AppendJSON(b, topic)
	b = append(b, `,"payload":`...)
	if embeddable(payload) {
		b = append(b, payload...)
	} else {
		b = escape.AppendJSON(b, string(payload))
	}
	return append(b, "}\n"...)
}

// embeddable: replay reads an embedded payload back byte for byte only if it
// has no surrounding whitespace and is not itself a JSON string.
func embeddable(p []byte) bool {
	if len(p) < 2 {
		return false
	}
	first, last := p[0], p[len(p)-1]
	return (first == '{' && last == '}' || first == '[' && last == ']') && json.Valid(p)
}
