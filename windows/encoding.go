package windows

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/store"
	"github.com/axiomhq/hyperloglog"
)

// Encoding versions. Each encoding starts with its version byte so persist/
// can keep reading old state after a format change.
const (
	accumulatorVersion = 1
	// quantileVersion 2 adds the sketch's exact bounds; version 1 had none.
	quantileVersion  = 2
	quantileVersion1 = 1
	distinctVersion  = 1
	// hllPrecision is the precision of hyperloglog.New14.
	hllPrecision = 14
)

// appendBinary encodes the accumulator:
//
//	version, uvarint #aggregates, per aggregate: fn byte, slot fields,
//	uvarint #quantile sketches, each sketch, uvarint #distinct sketches, each sketch.
func (acc *accumulator) appendBinary(a *Aggregates, dst []byte) []byte {
	dst = append(dst, accumulatorVersion)
	dst = binary.AppendUvarint(dst, uint64(len(a.aggs)))
	for i := range a.aggs {
		f := a.aggs[i].fn
		s := &acc.slots[i]
		dst = append(dst, byte(f))
		switch f {
		case fnQuantile, fnDistinct:
			continue // the sketches follow
		}
		dst = binary.AppendUvarint(dst, uint64(s.n))
		if s.n == 0 || f == fnCount {
			continue
		}
		dst = appendFloat(dst, s.a)
		switch f {
		case fnFirst, fnLast:
			dst = binary.AppendVarint(dst, s.ts)
			dst = binary.AppendUvarint(dst, uint64(s.seq))
		case fnVariance, fnStddev:
			dst = appendFloat(dst, s.b)
		}
	}
	dst = binary.AppendUvarint(dst, uint64(len(acc.quant)))
	for i := range acc.quant {
		dst = acc.quant[i].appendBinary(dst)
	}
	dst = binary.AppendUvarint(dst, uint64(len(acc.dist)))
	for _, d := range acc.dist {
		dst = appendDistinctSketch(dst, d)
	}
	return dst
}

// decodeAccumulator decodes what appendBinary wrote for the same aggregates.
func (a *Aggregates) decodeAccumulator(r *reader) (accumulator, error) {
	if v := r.byte(); r.err == nil && v != accumulatorVersion {
		return accumulator{}, fmt.Errorf("accumulator encoding version %d is not supported (want %d)", v, accumulatorVersion)
	}
	if n := r.uvarint(); r.err == nil && n != uint64(len(a.aggs)) {
		return accumulator{}, fmt.Errorf("state holds %d aggregates but %d are configured", n, len(a.aggs))
	}
	acc := accumulator{slots: make([]slot, len(a.aggs))}
	for i := 0; i < len(a.aggs) && r.err == nil; i++ {
		f := a.aggs[i].fn
		if got := fn(r.byte()); r.err == nil && got != f {
			return accumulator{}, fmt.Errorf("state aggregate %d has function code %d but %q is configured", i, got, a.aggs[i].spec.Name)
		}
		if f == fnQuantile || f == fnDistinct {
			continue
		}
		s := &acc.slots[i]
		s.n = r.count()
		if s.n == 0 || f == fnCount {
			continue
		}
		s.a = r.float()
		switch f {
		case fnFirst, fnLast:
			s.ts = r.varint()
			s.seq = r.count()
		case fnVariance, fnStddev:
			s.b = r.float()
		}
	}
	if n := r.uvarint(); r.err == nil && n != uint64(len(a.quantFields)) {
		return accumulator{}, fmt.Errorf("state holds %d quantile sketches but %d are configured", n, len(a.quantFields))
	}
	for _, f := range a.quantFields {
		if r.err != nil {
			break
		}
		q, legacy := decodeQuantSketch(r)
		if legacy {
			a.boundLegacy(&acc, &q, f)
		}
		acc.quant = append(acc.quant, q)
	}
	if n := r.uvarint(); r.err == nil && n != uint64(len(a.distFields)) {
		return accumulator{}, fmt.Errorf("state holds %d distinct sketches but %d are configured", n, len(a.distFields))
	}
	for range a.distFields {
		if r.err != nil {
			break
		}
		acc.dist = append(acc.dist, decodeDistinctSketch(r))
	}
	if r.err != nil {
		return accumulator{}, fmt.Errorf("decoding accumulator: %w", r.err)
	}
	return acc, nil
}

// appendBinary writes q: version, a byte 1 and lo and hi if q is bounded
// (else 0), then the sketch as appendSketchBins does.
func (q *quantSketch) appendBinary(dst []byte) []byte {
	dst = append(dst, quantileVersion)
	if q.bounded {
		dst = append(dst, 1)
		dst = appendFloat(dst, q.lo)
		dst = appendFloat(dst, q.hi)
	} else {
		dst = append(dst, 0)
	}
	s := q.view()
	dst = appendSketchBins(dst, s)
	q.release(s)
	return dst
}

// appendSketchBins writes uvarint zero count, then the positive and negative
// stores as uvarint #bins and (varint index delta, uvarint count) pairs.
// Counts are whole numbers: the sketch only ever adds 1 or merges.
func appendSketchBins(dst []byte, s *ddsketch.DDSketch) []byte {
	dst = binary.AppendUvarint(dst, uint64(s.GetZeroCount()))
	e := binEncoders.Get().(*binEncoder)
	dst = e.appendStore(dst, s.GetPositiveValueStore())
	dst = e.appendStore(dst, s.GetNegativeValueStore())
	e.dst = nil
	binEncoders.Put(e)
	return dst
}

// binEncoder writes a sketch store's bins. Its visit funcs are bound once, so
// encoding a window's sketch on every commit allocates nothing: a closure handed
// to the store interface would escape each time.
type binEncoder struct {
	dst        []byte
	bins, prev int
	count      func(int, float64) bool
	write      func(int, float64) bool
}

var binEncoders = sync.Pool{New: func() any {
	e := &binEncoder{}
	e.count = func(int, float64) bool { e.bins++; return false }
	e.write = func(index int, count float64) bool {
		e.dst = binary.AppendVarint(e.dst, int64(index-e.prev))
		e.dst = binary.AppendUvarint(e.dst, uint64(count))
		e.prev = index
		return false
	}
	return e
}}

func (e *binEncoder) appendStore(dst []byte, st store.Store) []byte {
	e.bins, e.prev = 0, 0
	st.ForEach(e.count)
	e.dst = binary.AppendUvarint(dst, uint64(e.bins))
	st.ForEach(e.write)
	return e.dst
}

// decodeQuantSketch decodes what appendBinary wrote, or a version 1 sketch,
// which has no bounds: legacy reports that one with values.
func decodeQuantSketch(r *reader) (q quantSketch, legacy bool) {
	q.s = newQuantileSketch()
	switch v := r.byte(); {
	case r.err != nil:
		return q, false
	case v == quantileVersion:
		switch b := r.byte(); {
		case b == 1:
			q.lo, q.hi, q.bounded = r.float(), r.float(), true
			if r.err == nil && !(q.lo <= q.hi) {
				r.fail(fmt.Errorf("quantile sketch bounds [%v, %v] are not an interval", q.lo, q.hi))
			}
		case b != 0 && r.err == nil:
			r.fail(fmt.Errorf("quantile sketch bounds flag %d is neither 0 nor 1", b))
		}
	case v != quantileVersion1:
		r.fail(fmt.Errorf("quantile sketch encoding version %d is not supported (want %d or %d)", v, quantileVersion1, quantileVersion))
	default:
		legacy = true
	}
	decodeSketchBins(r, q.s)
	if r.err != nil || q.s.IsEmpty() {
		return q, false
	}
	if legacy {
		q.lo, q.hi, q.bounded = math.Inf(-1), math.Inf(1), true
	} else if !q.bounded {
		r.fail(errors.New("quantile sketch holds values but no bounds"))
	}
	return q, legacy
}

// boundLegacy gives a version 1 sketch of field f the window's own min(f) and
// max(f), which are exact over the same values, where they are configured.
func (a *Aggregates) boundLegacy(acc *accumulator, q *quantSketch, f int) {
	for i := range a.aggs {
		ag, s := &a.aggs[i], &acc.slots[i]
		if ag.field != f || s.n == 0 {
			continue
		}
		switch ag.fn {
		case fnMin:
			q.lo = s.a
		case fnMax:
			q.hi = s.a
		}
	}
}

// decodeSketchBins decodes what appendSketchBins wrote into the empty s.
func decodeSketchBins(r *reader, s *ddsketch.DDSketch) {
	if zero := r.count(); zero > 0 {
		_ = s.AddWithCount(0, float64(zero))
	}
	for _, st := range []store.Store{s.GetPositiveValueStore(), s.GetNegativeValueStore()} {
		bins := r.length(2) // each bin takes at least two bytes
		index := int64(0)
		for i := 0; i < bins && r.err == nil; i++ {
			index += r.varint()
			count := r.count()
			if r.err != nil {
				break
			}
			if index < int64(minQuantileIndex) || index > int64(maxQuantileIndex) || count == 0 || count > 1<<53 {
				r.fail(fmt.Errorf("quantile sketch bin %d (index %d, count %d) is out of range", i, index, count))
				break
			}
			st.AddWithCount(int(index), float64(count))
		}
	}
}

// appendDistinctSketch writes version, uvarint length, hyperloglog's own
// encoding (itself versioned).
func appendDistinctSketch(dst []byte, s *hyperloglog.Sketch) []byte {
	dst = append(dst, distinctVersion)
	b, err := s.MarshalBinary()
	if err != nil {
		// Only a zero-value sketch fails, and accumulators never hold one.
		panic("windows: encoding a distinct sketch: " + err.Error())
	}
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

func decodeDistinctSketch(r *reader) *hyperloglog.Sketch {
	s := hyperloglog.New14()
	if v := r.byte(); r.err == nil && v != distinctVersion {
		r.fail(fmt.Errorf("distinct sketch encoding version %d is not supported (want %d)", v, distinctVersion))
	}
	b := r.bytes(r.length(1))
	if r.err != nil {
		return s
	}
	if len(b) < 2 || b[1] != hllPrecision {
		r.fail(errors.New("distinct sketch does not have precision 14"))
		return s
	}
	if err := s.UnmarshalBinary(b); err != nil {
		r.fail(fmt.Errorf("distinct sketch: %w", err))
	}
	return s
}

func appendFloat(dst []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
}

// reader decodes untrusted bytes; the first error sticks and later reads
// return zero values, so decoders check r.err once where it matters.
type reader struct {
	b   []byte
	err error
}

var errShort = errors.New("unexpected end of data")

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.fail(errShort)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(errors.New("malformed unsigned varint"))
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(errors.New("malformed varint"))
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a uvarint that must fit in an int64.
func (r *reader) count() int64 {
	v := r.uvarint()
	if v > math.MaxInt64 {
		r.fail(fmt.Errorf("count %d does not fit in int64", v))
		return 0
	}
	return int64(v)
}

// length reads a uvarint length of items of at least minSize bytes each and
// rejects lengths the remaining data cannot hold, so garbage cannot make a
// decoder allocate or loop for long.
func (r *reader) length(minSize int) int {
	v := r.uvarint()
	if r.err == nil && v > uint64(len(r.b)/minSize) {
		r.fail(fmt.Errorf("length %d exceeds the %d bytes left", v, len(r.b)))
		return 0
	}
	return int(v)
}

func (r *reader) float() float64 {
	if r.err != nil || len(r.b) < 8 {
		r.fail(errShort)
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return f
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.fail(errShort)
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}
