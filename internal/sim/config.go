package sim

import (
	"errors"
	"fmt"
	"time"
)

// Config shapes a feed. Times are in milliseconds since the epoch; durations
// are rounded to milliseconds.
type Config struct {
	Sensors int // sensors s-1 .. s-<Sensors>
	// Rate is the number of readings per second of each sensor (not of the
	// whole feed): the feed carries Sensors*Rate readings per second.
	Rate float64
	// Duration is the span of event time the feed covers; 0 = endless.
	Duration time.Duration
	// Disorder: each reading is sent between 0 and Disorder after its event
	// time, so readings arrive shuffled within Disorder.
	Disorder time.Duration
	// LateFraction of the readings are held back and sent exactly LateBy
	// after their event time.
	LateFraction float64
	LateBy       time.Duration
	// TooLateFraction of the other readings are held back and sent exactly
	// TooLateBy after their event time: past a window's allowed lateness when
	// TooLateBy is longer than the window plus its lateness.
	TooLateFraction float64
	TooLateBy       time.Duration
	// Silent sensors (the last ones: s-<Sensors-Silent+1> .. s-<Sensors>)
	// stop publishing once their event time reaches Start+SilentAfter: for
	// good if SilentFor is 0, else for SilentFor, and again every SilentEvery
	// after that if SilentEvery is above 0. A reading held back from before a
	// silence is still sent.
	Silent      int
	SilentAfter time.Duration
	SilentFor   time.Duration
	SilentEvery time.Duration
	Seed        uint64
	// Start is the event time origin and the send time of the feed's
	// beginning, ms since the epoch.
	Start int64
	// TopicPrefix makes topics <TopicPrefix>/s-<i>/data; "" = "sensors".
	TopicPrefix string
}

// DefaultTopicPrefix is the topic prefix of the demo config's stream.
const DefaultTopicPrefix = "sensors"

// Validate reports every setting out of range at once.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Sensors < 1 {
		bad("sensors is %d: at least 1 is needed", c.Sensors)
	}
	if c.Rate <= 0 || c.Rate > 1000 {
		bad("rate is %v readings/s per sensor: it must be above 0 and at most 1000", c.Rate)
	}
	if c.Duration < 0 || c.Disorder < 0 || c.LateBy < 0 || c.TooLateBy < 0 || c.SilentAfter < 0 || c.SilentFor < 0 || c.SilentEvery < 0 {
		bad("duration, disorder, late-by, too-late-by and the silent durations must not be negative")
	}
	checkHeldBack(bad, c.LateFraction, c.LateBy, c.TooLateFraction, c.TooLateBy)
	if c.SilentEvery > 0 && c.SilentFor >= c.SilentEvery {
		bad("silent-for is %s and silent-every %s: a silence must end before the next one begins", c.SilentFor, c.SilentEvery)
	}
	if c.Silent < 0 || c.Silent > c.Sensors {
		bad("silent is %d: it must be between 0 and the number of sensors (%d)", c.Silent, c.Sensors)
	}
	return errors.Join(errs...)
}

// checkHeldBack reports fractions of held-back readings out of range.
func checkHeldBack(bad func(string, ...any), lateFraction float64, lateBy time.Duration, tooLateFraction float64, tooLateBy time.Duration) {
	if lateFraction < 0 || lateFraction > 1 {
		bad("late fraction is %v: it must be between 0 and 1", lateFraction)
	}
	if lateFraction > 0 && lateBy == 0 {
		bad("a late fraction needs a late-by above 0")
	}
	if tooLateFraction < 0 || tooLateFraction > 1 {
		bad("too-late fraction is %v: it must be between 0 and 1", tooLateFraction)
	}
	if tooLateFraction > 0 && tooLateBy == 0 {
		bad("a too-late fraction needs a too-late-by above 0")
	}
}

// silentAt says whether a silent sensor is quiet at since ms after Start.
func (c *Config) silentAt(since int64) bool {
	if since < c.SilentAfter.Milliseconds() {
		return false
	}
	if c.SilentFor == 0 {
		return true
	}
	off := since - c.SilentAfter.Milliseconds()
	if every := c.SilentEvery.Milliseconds(); every > 0 {
		off %= every
	}
	return off < c.SilentFor.Milliseconds()
}

func (c *Config) prefix() string {
	if c.TopicPrefix == "" {
		return DefaultTopicPrefix
	}
	return c.TopicPrefix
}
