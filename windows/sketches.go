package windows

import (
	"encoding/binary"
	"math"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/store"
	"github.com/axiomhq/hyperloglog"
)

// quantileMapping is immutable and shared by every quantile sketch, which
// also guarantees that any two sketches can merge.
var quantileMapping = mustMapping()

func mustMapping() *portableMapping {
	m, err := newPortableMapping(QuantileAccuracy)
	if err != nil {
		panic("windows: building the quantile mapping: " + err.Error())
	}
	return m
}

// Index bounds of values the mapping can hold; decoded bins outside are garbage.
var (
	minQuantileIndex = quantileMapping.Index(quantileMapping.MinIndexableValue())
	maxQuantileIndex = quantileMapping.Index(quantileMapping.MaxIndexableValue())
)

func newQuantileSketch() *ddsketch.DDSketch {
	return ddsketch.NewDDSketch(quantileMapping,
		store.NewCollapsingLowestDenseStore(QuantileMaxBins),
		store.NewCollapsingLowestDenseStore(QuantileMaxBins))
}

func addQuantile(s *ddsketch.DDSketch, x float64) {
	// Values beyond the mapping's range (about ±1e307) cannot be tracked;
	// skipping them is all the sketch allows.
	_ = s.Add(x)
}

func quantile(s *ddsketch.DDSketch, q float64) float64 {
	v, err := s.GetValueAtQuantile(q)
	if err != nil {
		return math.NaN()
	}
	return v
}

func addDistinct(s *hyperloglog.Sketch, v *Value) {
	switch v.Kind {
	case Number:
		if math.IsNaN(v.Num) {
			return // NaN is missing, as for the numeric aggregates
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v.Num))
		s.Insert(b[:])
	case String:
		s.Insert([]byte(v.Str))
	}
}
