package windows

import (
	"fmt"

	"github.com/edged/edged/watermark"
)

// Window is the half-open event-time interval [Start, End) in milliseconds.
type Window struct{ Start, End int64 }

// MaxTimestamp is the last event time inside the window, End-1: the window
// fires when the watermark reaches it.
func (w Window) MaxTimestamp() int64 { return w.End - 1 }

func (w Window) String() string { return fmt.Sprintf("[%d, %d)", w.Start, w.End) }

// cleanupTime is when the window's state may go: MaxTimestamp + lateness.
func (w Window) cleanupTime(lateness int64) int64 { return watermark.AddSat(w.End-1, lateness) }
