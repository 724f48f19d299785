package windows

import (
	"fmt"
	"math"
)

// Window is the half-open event-time interval [Start, End) in milliseconds.
type Window struct{ Start, End int64 }

// MaxTimestamp is the last event time inside the window, End-1: the window
// fires when the watermark reaches it.
func (w Window) MaxTimestamp() int64 { return w.End - 1 }

func (w Window) String() string { return fmt.Sprintf("[%d, %d)", w.Start, w.End) }

// cleanupTime is when the window's state may go: MaxTimestamp + lateness.
func (w Window) cleanupTime(lateness int64) int64 { return addSat(w.End-1, lateness) }

// addSat returns a+b clamped to the int64 range. Event times come from
// payloads, so a broken device can send values near the limits; wrapping
// around would turn a far-future window into a far-past one.
func addSat(a, b int64) int64 {
	c := a + b
	switch {
	case b > 0 && c < a:
		return math.MaxInt64
	case b < 0 && c > a:
		return math.MinInt64
	}
	return c
}
