package oracle

import (
	"fmt"
	"math/rand/v2"

	"github.com/edged/edged/windows"
)

// Event is one generated record in arrival order.
type Event struct {
	Key    string
	TS     int64
	Values []windows.Value // aligned with Config.Fields
}

// Field describes one generated value field.
type Field struct {
	// Kind is windows.Number or windows.String.
	Kind windows.ValueKind
	// Min and Max bound numbers. Numbers are Min plus multiples of 1/4, so
	// with Min a multiple of 1/4 and moderate magnitudes, sums are exact in
	// float64 whatever the order of addition (sessions merge sums).
	Min, Max float64
	// Cardinality is the number of distinct strings ("v0", "v1", ...).
	Cardinality int
	// MissingFraction of the records lack the field.
	MissingFraction float64
}

// Config shapes a generated stream.
type Config struct {
	Seed   uint64
	Keys   int // keys "k0".."k{Keys-1}", chosen uniformly; at least 1
	Events int
	// Start is the event time of the first event; negative is fine.
	Start int64
	// Step is the mean advance of the stream's clock per event, in ms; each
	// advance is uniform in [0, 2*Step], so equal timestamps happen.
	Step int64
	// Disorder: an on-time event lies up to Disorder ms behind the clock.
	Disorder int64
	// LateFraction of the events lie a further 1..LateBy ms behind.
	LateFraction float64
	LateBy       int64
	Fields       []Field
}

// Generate returns cfg.Events events in arrival order; the same config
// always yields the same events.
func Generate(cfg Config) []Event {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x0ed9ed))
	keys := max(cfg.Keys, 1)
	clock := cfg.Start
	events := make([]Event, cfg.Events)
	for i := range events {
		if i > 0 && cfg.Step > 0 {
			clock += rng.Int64N(2*cfg.Step + 1)
		}
		ts := clock
		if cfg.Disorder > 0 {
			ts -= rng.Int64N(cfg.Disorder + 1)
		}
		if cfg.LateBy > 0 && rng.Float64() < cfg.LateFraction {
			ts -= 1 + rng.Int64N(cfg.LateBy)
		}
		e := Event{Key: fmt.Sprintf("k%d", rng.IntN(keys)), TS: ts}
		if len(cfg.Fields) > 0 {
			e.Values = make([]windows.Value, len(cfg.Fields))
			for j, f := range cfg.Fields {
				e.Values[j] = f.generate(rng)
			}
		}
		events[i] = e
	}
	return events
}

func (f Field) generate(rng *rand.Rand) windows.Value {
	if rng.Float64() < f.MissingFraction {
		return windows.Value{}
	}
	if f.Kind == windows.String {
		return windows.StringValue(fmt.Sprintf("v%d", rng.IntN(max(f.Cardinality, 1))))
	}
	quarters := int64((f.Max - f.Min) * 4)
	x := f.Min
	if quarters > 0 {
		x += float64(rng.Int64N(quarters+1)) / 4
	}
	return windows.NumberValue(x)
}
