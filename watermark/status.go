package watermark

import (
	"fmt"
	"strconv"
)

// Status is what a stream or a valve tells the operators downstream.
type Status struct {
	Watermark int64
	Idle      bool
}

// String reads like "94999 active" or "min idle"; scripts and logs use it.
func (s Status) String() string {
	state := "active"
	if s.Idle {
		state = "idle"
	}
	return formatWatermark(s.Watermark) + " " + state
}

func formatWatermark(wm int64) string {
	if wm == Min {
		return "min"
	}
	return strconv.FormatInt(wm, 10)
}

// Verdict is what a Generator did with a record.
type Verdict uint8

const (
	// Accepted: the record counts; nothing else to do.
	Accepted Verdict = iota
	// Reactivated: the record counts and the stream was idle; it is active
	// again, so its status should be emitted now rather than at the next tick.
	Reactivated
	// Future: rejected by the skew guard; the record changed nothing and goes
	// to the late output with reason "future".
	Future
)

var verdictNames = [...]string{Accepted: "accepted", Reactivated: "reactivated", Future: "future"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}
