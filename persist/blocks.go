package persist

// blocks collects many values in blocks of up to blockLen, so they are not copied
// again and again as one slice grows: a large slice grows by a quarter, and 100,000
// appends allocate about five times the final size. slice returns them in one slice of
// the exact size.
type blocks[T any] struct {
	full [][]T
	cur  []T
	n    int
}

const blockLen = 4096

func (b *blocks[T]) add(v T) {
	if len(b.cur) == cap(b.cur) {
		size := 16
		if b.cur != nil {
			b.full = append(b.full, b.cur)
			size = min(2*cap(b.cur), blockLen)
		}
		b.cur = make([]T, 0, size)
	}
	b.cur = append(b.cur, v)
	b.n++
}

func (b *blocks[T]) slice() []T {
	if len(b.full) == 0 {
		return b.cur
	}
	out := make([]T, 0, b.n)
	for _, f := range b.full {
		out = append(out, f...)
	}
	return append(out, b.cur...)
}
