package actors

import (
	"sync"

	"github.com/edged/edged/watermark"
)

// watermarks recycles the watermark changes a source sends to its window actors: a
// source emits one every watermark interval, so made afresh they would be the most
// frequent allocation on the record path.
//
// Lifetime: source.emit takes one, counts the window actors it sends it to in
// holders, and reads nothing of it after the last send. Each window actor calls done
// once it has applied it, and the last one puts it back. One that does not reach them
// all (a window actor stopped or restarted with it in its mailbox) is left to the
// garbage collector, and so is one made elsewhere (a newly bound key's first
// status), which has no holders.
var watermarks = sync.Pool{New: func() any { return new(WatermarkEmitted) }}

// takeWatermark returns a pooled change for holders window actors.
func takeWatermark(stream string, st watermark.Status, at int64, holders int) *WatermarkEmitted {
	m := watermarks.Get().(*WatermarkEmitted)
	m.Stream, m.Status, m.At = stream, st, at
	m.holders.Store(int32(holders))
	return m
}

// done records that one window actor applied m; the last puts it back.
func (m *WatermarkEmitted) done() {
	if m.holders.Add(-1) == 0 {
		watermarks.Put(m)
	}
}
