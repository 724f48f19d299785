package tune

import (
	"fmt"
	"slices"
	"testing"
)

func seq(from, to int64) []int64 {
	var s []int64
	for v := from; v <= to; v++ {
		s = append(s, v)
	}
	return s
}

func TestQuantileIsTheNearestRank(t *testing.T) {
	cases := []struct {
		samples []int64
		q       PPM
		want    int64
	}{
		{seq(1, 100), 500_000, 50},
		{seq(1, 100), 900_000, 90},
		{seq(1, 100), 990_000, 99},
		{seq(1, 100), 999_000, 100}, // rank ceil(99.9) = 100
		{seq(1, 100), Whole, 100},
		{seq(1, 100), 0, 1},
		{seq(1, 1000), 999_000, 999},
		{seq(1, 1000), 999_001, 1000},
		{seq(1, 10), 990_000, 10},
		{seq(1, 10), 500_000, 5},
		{seq(1, 10), 500_001, 6},
		{[]int64{7}, 1, 7},
		{[]int64{5, 1, 3}, 500_000, 3}, // unsorted input
		{[]int64{2, 2, 2, 9}, 750_000, 2},
		{[]int64{2, 2, 2, 9}, 750_001, 9},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d samples q=%d", len(c.samples), c.q), func(t *testing.T) {
			got, ok := NewDist(c.samples).Quantile(c.q)
			if !ok || got != c.want {
				t.Fatalf("Quantile(%d) = %d, %v; want %d", c.q, got, ok, c.want)
			}
		})
	}
}

func TestQuantileOfNothingIsNotOK(t *testing.T) {
	if _, ok := NewDist().Quantile(Whole / 2); ok {
		t.Fatal("an empty distribution has a median")
	}
	if _, ok := NewDist().SmallestAbove(1000); ok {
		t.Fatal("an empty distribution has a bound")
	}
}

func TestNewDistPoolsWithoutTouchingItsInputs(t *testing.T) {
	a, b := []int64{3, 1}, []int64{2}
	d := NewDist(a, b)
	if d.Len() != 3 || !slices.Equal(d.s, []int64{1, 2, 3}) {
		t.Fatalf("pooled %v", d.s)
	}
	if !slices.Equal(a, []int64{3, 1}) {
		t.Fatalf("input sorted in place: %v", a)
	}
}

func TestAboveCountsStrictlyGreaterSamples(t *testing.T) {
	d := NewDist([]int64{0, 0, 1, 1, 1, 4})
	for b, want := range map[int64]int{-1: 6, 0: 4, 1: 1, 2: 1, 3: 1, 4: 0, 5: 0} {
		if got := d.Above(b); got != want {
			t.Errorf("Above(%d) = %d, want %d", b, got, want)
		}
	}
}

func TestFractionRoundsDown(t *testing.T) {
	d := NewDist(seq(1, 3))
	if got := d.Fraction(1); got != 333_333 {
		t.Fatalf("1 of 3 = %d ppm", got)
	}
	if got := NewDist().Fraction(0); got != 0 {
		t.Fatalf("0 of 0 = %d ppm", got)
	}
}

// Every multiset of up to 6 samples from 0..3, every target: the bound is the
// smallest one at most floor(target·n) samples exceed.
func TestSmallestAboveIsMinimalExhaustively(t *testing.T) {
	targets := []PPM{0, 1, 1000, 100_000, 166_666, 166_667, 250_000, 333_334, 500_000, 999_999}
	var gen func(prefix []int64, from int64)
	checked := 0
	gen = func(prefix []int64, from int64) {
		if len(prefix) > 0 {
			d := NewDist(prefix)
			n := int64(len(prefix))
			for _, tg := range targets {
				allowed := int(n * int64(tg) / int64(Whole))
				b, ok := d.SmallestAbove(tg)
				if !ok {
					t.Fatalf("%v: no bound", prefix)
				}
				if d.Above(b) > allowed {
					t.Fatalf("%v target %d: bound %d leaves %d above, allowed %d", prefix, tg, b, d.Above(b), allowed)
				}
				if d.Above(b-1) <= allowed {
					t.Fatalf("%v target %d: bound %d is not the smallest", prefix, tg, b)
				}
				checked++
			}
		}
		if len(prefix) == 6 {
			return
		}
		for v := from; v <= 3; v++ {
			gen(append(prefix, v), v)
		}
	}
	gen(nil, 0)
	t.Logf("%d cases", checked)
}
