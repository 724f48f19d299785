package windows

import (
	"math"

	"github.com/DataDog/sketches-go/ddsketch/mapping"
)

// portableMapping is DDSketch's logarithmic mapping computed with
// portableLog and portableExp and without fusable products, so a value lands
// in the same bin, and a bin maps back to the same value, on every
// architecture. mapping.LogarithmicMapping calls math.Log and math.Exp and
// computes log(v)*multiplier + offset, which arm64 fuses. The embedded
// upstream mapping (same gamma, offset 0) supplies the descriptive methods
// (ToProto, Encode) and RelativeAccuracy, 1 - 2/(1+gamma), which has no
// product to fuse.
type portableMapping struct {
	*mapping.LogarithmicMapping
	gamma      float64
	multiplier float64 // 1 / ln(gamma)
	minValue   float64
	maxValue   float64
}

// Bounds as in mapping.NewLogarithmicMappingWithGamma: indexes fit in an
// int32, values are normal floats and exp does not overflow.
const (
	expOverflow      = 7.094361393031e+02
	minNormalFloat64 = 2.2250738585072014e-308 // 2**-1022
)

func newPortableMapping(relativeAccuracy float64) (*portableMapping, error) {
	upstream, err := mapping.NewLogarithmicMapping(relativeAccuracy)
	if err != nil {
		return nil, err
	}
	gamma := (1 + relativeAccuracy) / (1 - relativeAccuracy)
	multiplier := 1 / portableLog(gamma)
	return &portableMapping{
		LogarithmicMapping: upstream,
		gamma:              gamma,
		multiplier:         multiplier,
		minValue: math.Max(
			portableExp(math.MinInt32/multiplier+1),
			float64(minNormalFloat64*gamma),
		),
		maxValue: math.Min(
			portableExp(math.MaxInt32/multiplier-1),
			float64(portableExp(expOverflow)/float64(2*gamma))*(gamma+1),
		),
	}, nil
}

// Equals is true only for a portableMapping of the same gamma: sketches
// merge only when they bin alike.
func (m *portableMapping) Equals(other mapping.IndexMapping) bool {
	o, ok := other.(*portableMapping)
	return ok && o.gamma == m.gamma
}

// Index is floor(log_gamma(value)).
func (m *portableMapping) Index(value float64) int {
	index := float64(portableLog(value) * m.multiplier)
	if index >= 0 {
		return int(index)
	}
	return int(index) - 1 // floor of a negative, as upstream
}

// Value is the bin's representative: its lower bound times (1 + accuracy).
func (m *portableMapping) Value(index int) float64 {
	return float64(m.LowerBound(index) * (1 + m.RelativeAccuracy()))
}

// LowerBound is gamma**index.
func (m *portableMapping) LowerBound(index int) float64 {
	return portableExp(float64(index) / m.multiplier)
}

// MinIndexableValue is the smallest positive value with a bin.
func (m *portableMapping) MinIndexableValue() float64 { return m.minValue }

// MaxIndexableValue is the largest value with a bin.
func (m *portableMapping) MaxIndexableValue() float64 { return m.maxValue }

var _ mapping.IndexMapping = (*portableMapping)(nil)
