package persist

import (
	"slices"
	"testing"
)

func TestBlocksGiveBackEveryValueInOrder(t *testing.T) {
	for _, n := range []int{0, 1, 16, 17, blockLen, 3*blockLen + 5} {
		var b blocks[int]
		var want []int
		for i := range n {
			b.add(i)
			want = append(want, i)
		}
		if got := b.slice(); !slices.Equal(got, want) || len(got) != b.n {
			t.Errorf("%d values: got %d back (n %d), first differences in %v", n, len(got), b.n, got[:min(len(got), 20)])
		}
	}
}
