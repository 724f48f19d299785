package mqtt

import (
	"fmt"
	"strings"
)

// Unit is how a payload expresses event time. It is configured, never guessed.
type Unit uint8

const (
	Seconds Unit = iota // number of seconds since the epoch; fractions allowed
	Millis              // milliseconds since the epoch
	Micros              // microseconds since the epoch
	Nanos               // nanoseconds since the epoch
	RFC3339             // an RFC 3339 string, e.g. "2024-12-02T12:26:40.5Z"
)

var unitNames = [...]string{Seconds: "s", Millis: "ms", Micros: "us", Nanos: "ns", RFC3339: "rfc3339"}

// String returns the configuration name of u ("s", "ms", "us", "ns", "rfc3339").
func (u Unit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return fmt.Sprintf("Unit(%d)", u)
}

// ParseUnit parses a configuration name of a unit.
func ParseUnit(s string) (Unit, error) {
	for u, name := range unitNames {
		if s == name {
			return Unit(u), nil
		}
	}
	return 0, fmt.Errorf("unknown timestamp unit %q: use one of %s", s, strings.Join(unitNames[:], ", "))
}

// msShift is the power of ten that turns a number in u into milliseconds.
func (u Unit) msShift() int {
	switch u {
	case Seconds:
		return 3
	case Micros:
		return -3
	case Nanos:
		return -6
	}
	return 0
}
