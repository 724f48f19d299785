package tune

import "slices"

// PPM is a fraction in parts per million: 1_000_000 is the whole.
type PPM int64

// Whole is the fraction 1.
const Whole PPM = 1_000_000

// Dist is a sorted set of samples (ms).
type Dist struct{ s []int64 }

// NewDist pools samples into one distribution; the inputs are not modified.
func NewDist(samples ...[]int64) Dist {
	var n int
	for _, s := range samples {
		n += len(s)
	}
	all := make([]int64, 0, n)
	for _, s := range samples {
		all = append(all, s...)
	}
	slices.Sort(all)
	return Dist{all}
}

// Len is the number of samples.
func (d Dist) Len() int { return len(d.s) }

// Quantile is the nearest-rank q-quantile: the sample of 1-based rank
// ceil(q·n), the first sample when q is 0. ok is false with no samples.
func (d Dist) Quantile(q PPM) (v int64, ok bool) {
	n := int64(len(d.s))
	if n == 0 {
		return 0, false
	}
	q = min(max(q, 0), Whole)
	rank := (n*int64(q) + int64(Whole) - 1) / int64(Whole)
	return d.s[max(rank, 1)-1], true
}

// Above counts the samples greater than b.
func (d Dist) Above(b int64) int {
	i, found := slices.BinarySearch(d.s, b)
	for found && i < len(d.s) && d.s[i] == b {
		i++
	}
	return len(d.s) - i
}

// Fraction is n over the number of samples, in ppm rounded down; 0 with no
// samples.
func (d Dist) Fraction(n int) PPM {
	if len(d.s) == 0 {
		return 0
	}
	return PPM(int64(n) * int64(Whole) / int64(len(d.s)))
}

// SmallestAbove is the smallest b that at most a fraction target of the
// samples exceed: the nearest-rank (1 - target)-quantile. At most
// floor(target·n) samples are then greater than b, and any smaller b has more.
func (d Dist) SmallestAbove(target PPM) (int64, bool) {
	return d.Quantile(Whole - target)
}
