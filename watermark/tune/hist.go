package tune

import (
	"math"
	"math/bits"
	"sync/atomic"
)

// Delay is a reading's delay (ms) given its event time ts and its stream's
// highest accepted event time after it, maxAfter: max(0, M - ts) with M the
// max before it (see the package doc), which is maxAfter - ts, since a reading
// ahead of M becomes the new max. Stream and the daemon's live histogram
// (edged /status) both use it, so their numbers agree. A difference beyond
// the int64 range saturates.
func Delay(maxAfter, ts int64) int64 {
	if ts >= maxAfter {
		return 0
	}
	if d := maxAfter - ts; d > 0 {
		return d
	}
	return math.MaxInt64
}

// Hist is a delay distribution in fixed log-spaced buckets with atomic
// counters: what a running daemon keeps per stream definition, where Dist
// would have to keep every sample. Record takes no lock and allocates
// nothing; any number of goroutines may Record and Snapshot at once.
//
// Resolution: delays of 0-15 ms have a bucket each; above, every power of two
// is split into 16 equal buckets, so a bucket is at most 1/16 of its lowest
// value wide. A quantile is reported as the highest value of the bucket that
// holds the exact nearest-rank quantile (capped by the exact max), so it is
// never below the exact one and less than 6.25% (one bucket) above it.
// Delays of 2^32 ms (49.7 days) or more share the last bucket, whose values
// are reported as the max. Size: HistBuckets counters, about 3.7 KB.
type Hist struct {
	counts [HistBuckets]atomic.Uint64
	max    atomic.Int64
}

const (
	histSubBits = 4 // 16 buckets per power of two
	histSub     = 1 << histSubBits
	histTopBits = 32 // delays from 2^histTopBits ms share the last bucket
	// HistBuckets is the number of buckets of a Hist.
	HistBuckets = (histTopBits-histSubBits+1)*histSub + 1
)

// histBucket is the bucket of delay d (d >= 0).
func histBucket(d int64) int {
	if d < histSub {
		return int(d)
	}
	e := bits.Len64(uint64(d)) - 1 // d is in [2^e, 2^(e+1))
	if e >= histTopBits {
		return HistBuckets - 1
	}
	return (e-histSubBits+1)*histSub + int(d>>(e-histSubBits)) - histSub
}

// histRange is the lowest and highest delay of bucket i; the last bucket's
// highest is unbounded.
func histRange(i int) (lo, hi int64) {
	if i < histSub {
		return int64(i), int64(i)
	}
	if i == HistBuckets-1 {
		return 1 << histTopBits, math.MaxInt64
	}
	shift := i/histSub - 1 // e - histSubBits
	lo = int64(histSub+i%histSub) << shift
	return lo, lo + 1<<shift - 1
}

// Record adds a reading of delay d (ms); a negative d counts as 0.
func (h *Hist) Record(d int64) {
	d = max(d, 0)
	// The max first: a Snapshot, which loads it last, then never counts a
	// reading above its max.
	for m := h.max.Load(); d > m && !h.max.CompareAndSwap(m, d); m = h.max.Load() {
	}
	h.counts[histBucket(d)].Add(1)
}

// HistSnapshot is a copy of a Hist's counts at one time.
type HistSnapshot struct {
	counts [HistBuckets]uint64
	n      uint64
	max    int64
}

// Snapshot copies the counts. A reading recorded meanwhile may be in the
// counts or not; the max is loaded last, so it is at least every counted
// delay (it may be a newer reading's).
func (h *Hist) Snapshot() HistSnapshot {
	var s HistSnapshot
	for i := range s.counts {
		s.counts[i] = h.counts[i].Load()
		s.n += s.counts[i]
	}
	s.max = h.max.Load()
	return s
}

// Len is the number of readings.
func (s *HistSnapshot) Len() int64 { return int64(s.n) }

// Quantile is the nearest-rank q-quantile as Dist.Quantile defines it, to the
// resolution of the buckets: the highest value of the bucket holding the
// sample of rank ceil(q·n), capped by the max. ok is false with no readings.
func (s *HistSnapshot) Quantile(q PPM) (v int64, ok bool) {
	if s.n == 0 {
		return 0, false
	}
	rank := nearestRank(s.n, q)
	var seen uint64
	for i, c := range s.counts {
		if seen += c; seen >= rank {
			_, hi := histRange(i)
			return min(hi, s.max), true
		}
	}
	return s.max, true // not reached: rank <= n, the sum of the counts
}

// nearestRank is ceil(q·n), at least 1, for q clamped to [0, Whole]; exact
// for any n.
func nearestRank(n uint64, q PPM) uint64 {
	q = min(max(q, 0), Whole)
	hi, lo := bits.Mul64(n, uint64(q))
	lo, carry := bits.Add64(lo, uint64(Whole)-1, 0)
	r, _ := bits.Div64(hi+carry, lo, uint64(Whole))
	return max(r, 1)
}
