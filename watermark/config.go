package watermark

import (
	"fmt"
	"math"
)

// Min is the watermark before the first record: no window can fire on it.
const Min int64 = math.MinInt64

// Strategy says where a stream's watermark comes from.
type Strategy uint8

const (
	// Bounded: the watermark is maxTs - MaxOutOfOrderness - 1.
	Bounded Strategy = iota
	// Monotonous: the watermark is maxTs - 1 (a bound of zero).
	Monotonous
	// Punctuated: the watermark comes only from marks carried in the stream;
	// records do not move it.
	Punctuated
)

var strategyNames = [...]string{Bounded: "bounded", Monotonous: "monotonous", Punctuated: "punctuated"}

func (s Strategy) String() string {
	if int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", uint8(s))
}

// ParseStrategy reads a strategy by its configuration name.
func ParseStrategy(name string) (Strategy, error) {
	for i, n := range strategyNames {
		if n == name {
			return Strategy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown watermark strategy %q: valid strategies are bounded, monotonous and punctuated", name)
}

// IdleMode says what an idle stream's own watermark does.
type IdleMode uint8

const (
	// Advance (the default) extrapolates the watermark by the processing time
	// elapsed since the last record, so the last window of a stream that went
	// quiet still fires.
	Advance IdleMode = iota
	// Hold keeps the watermark where it was until the next record (Flink).
	Hold
)

var idleModeNames = [...]string{Advance: "advance", Hold: "hold"}

func (m IdleMode) String() string {
	if int(m) < len(idleModeNames) {
		return idleModeNames[m]
	}
	return fmt.Sprintf("IdleMode(%d)", uint8(m))
}

// ParseIdleMode reads an idle mode by its configuration name.
func ParseIdleMode(name string) (IdleMode, error) {
	for i, n := range idleModeNames {
		if n == name {
			return IdleMode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown idle mode %q: valid modes are advance and hold", name)
}

// Config is one stream's watermark configuration. The zero value is a bounded
// generator with no out-of-orderness, no idleness and no skew guard.
// Negative durations are treated as zero; configs/ rejects them before they
// get here.
type Config struct {
	// The two one-byte fields side by side, in one word: every source's generator
	// holds a copy.
	Strategy          Strategy
	IdleMode          IdleMode
	MaxOutOfOrderness int64 // B, ms; used by Bounded only
	IdleTimeout       int64 // ms of processing time without a record; 0 = never idle
	MaxFutureSkew     int64 // ms; 0 = guard off
}

// bound is B as applied: zero for every strategy but Bounded.
func (c Config) bound() int64 {
	if c.Strategy != Bounded {
		return 0
	}
	return max(c.MaxOutOfOrderness, 0)
}
