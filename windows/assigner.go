package windows

import (
	"fmt"

	"github.com/edged/edged/watermark"
)

// Assigner decides which windows an event time belongs to.
type Assigner interface {
	// Assign appends the windows containing ts to dst, ascending by start.
	// It may append none (sliding windows whose slide exceeds their size
	// leave gaps).
	Assign(ts int64, dst []Window) []Window
	// Merging reports session semantics: assigned windows merge with the
	// windows of the same key they touch.
	Merging() bool
}

// Tumbling returns fixed, non-overlapping windows of size ms whose starts are
// offset ms past multiples of size (Flink's TumblingEventTimeWindows). It
// panics if size is not positive: configs/ validates sizes first.
func Tumbling(size, offset int64) Assigner {
	if size <= 0 {
		panic(fmt.Sprintf("windows: tumbling window size must be positive, got %d", size))
	}
	return tumbling{size: size, offset: offset % size}
}

// Sliding returns windows of size ms starting every slide ms, offset ms past
// multiples of slide (Flink's SlidingEventTimeWindows). A record belongs to
// size/slide windows; with slide > size some records belong to none. It
// panics if size or slide is not positive.
func Sliding(size, slide, offset int64) Assigner {
	if size <= 0 || slide <= 0 {
		panic(fmt.Sprintf("windows: sliding window size and slide must be positive, got %d and %d", size, slide))
	}
	return sliding{size: size, slide: slide, offset: offset % slide}
}

// Session returns session windows: a record at ts opens [ts, ts+gap), and
// windows of a key that overlap or touch merge (Flink's
// EventTimeSessionWindows, whose TimeWindow.intersects is inclusive). It
// panics if gap is not positive.
func Session(gap int64) Assigner {
	if gap <= 0 {
		panic(fmt.Sprintf("windows: session gap must be positive, got %d", gap))
	}
	return session{gap: gap}
}

type tumbling struct{ size, offset int64 }

func (t tumbling) Assign(ts int64, dst []Window) []Window {
	s := windowStart(ts, t.offset, t.size)
	return append(dst, Window{Start: s, End: watermark.AddSat(s, t.size)})
}

func (tumbling) Merging() bool { return false }

type sliding struct{ size, slide, offset int64 }

func (s sliding) Assign(ts int64, dst []Window) []Window {
	n := len(dst)
	for st := windowStart(ts, s.offset, s.slide); st > ts-s.size; st -= s.slide {
		dst = append(dst, Window{Start: st, End: watermark.AddSat(st, s.size)})
	}
	added := dst[n:]
	for i, j := 0, len(added)-1; i < j; i, j = i+1, j-1 {
		added[i], added[j] = added[j], added[i]
	}
	return dst
}

func (sliding) Merging() bool { return false }

type session struct{ gap int64 }

func (s session) Assign(ts int64, dst []Window) []Window {
	return append(dst, Window{Start: ts, End: watermark.AddSat(ts, s.gap)})
}

func (session) Merging() bool { return true }

// windowStart is Flink's TimeWindow.getWindowStartWithOffset: the start of
// the size-aligned window containing ts, correct for negative timestamps.
func windowStart(ts, offset, size int64) int64 {
	return ts - mod(ts-offset, size)
}
