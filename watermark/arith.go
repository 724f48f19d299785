package watermark

import "math"

// Event times come from payloads, so a hostile or broken device can send
// values near the int64 limits; the arithmetic saturates instead of wrapping
// around, which would turn a far-future timestamp into a far-past watermark.

// AddSat returns a+b clamped to the int64 range: event-time arithmetic that a
// timestamp near the limits cannot wrap around. windows/ uses it too.
func AddSat(a, b int64) int64 {
	c := a + b
	switch {
	case b > 0 && c < a:
		return math.MaxInt64
	case b < 0 && c > a:
		return math.MinInt64
	}
	return c
}

// elapsed returns now-since, or 0 if the clock did not move forward.
func elapsed(now, since int64) int64 {
	if now <= since {
		return 0
	}
	if d := now - since; d > 0 {
		return d
	}
	return math.MaxInt64
}
