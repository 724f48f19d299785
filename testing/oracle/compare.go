package oracle

import (
	"errors"
	"fmt"
	"math"

	"github.com/edged/edged/windows"
)

// Tolerances of Equal.
const (
	// MeanRelTol applies to avg, variance and stddev: Welford and merged
	// states round differently from the two-pass recomputation.
	MeanRelTol = 1e-9
	// DistinctRelTol applies to distinct (HyperLogLog, precision 14).
	DistinctRelTol = 0.03
)

// Equal compares got against want (typically the operator's result against
// Compute's) in aggs.Names() order: count, sum, min, max, first and last
// exactly; avg, variance and stddev to MeanRelTol; pNN to
// windows.QuantileAccuracy relative to the exact quantile; distinct to
// DistinctRelTol. NaN equals NaN (both saw no value). It returns every
// mismatch in one error.
func Equal(got, want []windows.NamedValue, aggs *windows.Aggregates) error {
	specs := aggs.Specs()
	if len(got) != len(specs) || len(want) != len(specs) {
		return fmt.Errorf("got %d values and want %d, but %d aggregates are configured", len(got), len(want), len(specs))
	}
	var errs []error
	for i, s := range specs {
		g, w := got[i], want[i]
		if g.Name != s.Name || w.Name != s.Name {
			errs = append(errs, fmt.Errorf("value %d is named %q (got) and %q (want), expected %q", i, g.Name, w.Name, s.Name))
			continue
		}
		if !within(s.Func, g.Value, w.Value) {
			errs = append(errs, fmt.Errorf("%s = %v, want %v", s.Name, g.Value, w.Value))
		}
	}
	return errors.Join(errs...)
}

func within(fn string, got, want float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.IsNaN(got) && math.IsNaN(want)
	}
	diff := math.Abs(got - want)
	switch fn {
	case "avg", "variance", "stddev":
		return diff <= MeanRelTol*math.Max(math.Abs(want), 1e-3)
	case "quantile":
		// A hair over the stated accuracy absorbs rounding in the mapping.
		return diff <= windows.QuantileAccuracy*(1+1e-9)*math.Abs(want)+1e-12
	case "distinct":
		return diff <= DistinctRelTol*want
	default:
		return got == want
	}
}
