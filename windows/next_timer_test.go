package windows

import (
	"math"
	"testing"
)

// timersOf returns the firing and cleanup times of every window a assigns to an
// event time in ts.
func timersOf(a Assigner, lateness int64, ts []int64) map[int64]bool {
	times := map[int64]bool{}
	for _, t := range ts {
		for _, w := range a.Assign(t, nil) {
			times[w.MaxTimestamp()] = true
			times[w.cleanupTime(lateness)] = true
		}
	}
	return times
}

// TestNextTimerIsTheNextTimerOfAnyWindow compares NextTimer, for every watermark in
// a span, with the earliest timer after it among all windows the assigner makes
// around that span, over every small tumbling and sliding shape.
func TestNextTimerIsTheNextTimerOfAnyWindow(t *testing.T) {
	var ts []int64
	for x := int64(-80); x <= 80; x++ {
		ts = append(ts, x)
	}
	var asgs []Assigner
	for size := int64(1); size <= 7; size++ {
		for offset := int64(-8); offset <= 8; offset++ {
			asgs = append(asgs, Tumbling(size, offset))
			for slide := int64(1); slide <= size+2; slide++ {
				asgs = append(asgs, Sliding(size, slide, offset))
			}
		}
	}
	for _, a := range asgs {
		for lateness := int64(0); lateness <= 9; lateness++ {
			times := timersOf(a, lateness, ts)
			for wm := int64(-40); wm <= 40; wm++ {
				want := int64(math.MaxInt64)
				for x := range times {
					if x > wm && x < want {
						want = x
					}
				}
				got, ok := NextTimer(a, lateness, wm)
				if !ok || got != want {
					t.Fatalf("%#v lateness %d: NextTimer(%d) = %d, %v; the next timer is at %d", a, lateness, wm, got, ok, want)
				}
			}
		}
	}
}

// TestNextTimerAtTheEndsOfTime checks, for watermarks at the ends of the int64
// range, windows that saturate at its top and sizes up to 35 years, that NextTimer
// lies after the watermark and is never later than a timer that is.
func TestNextTimerAtTheEndsOfTime(t *testing.T) {
	const hi, lo = math.MaxInt64, math.MinInt64
	sizes := []int64{1, 3, 1000, 1 << 40}
	events := []int64{lo / 2, -1, 0, 1, hi - 1<<41, hi - 1000, hi - 2, hi - 1, hi}
	marks := append([]int64{lo, lo + 1, lo + 2, lo + 999}, events...)
	for _, size := range sizes {
		for _, offset := range []int64{0, 1, -7, hi} {
			asgs := []Assigner{Tumbling(size, offset), Sliding(size, max(size/3, 1), offset), Sliding(size, size, offset)}
			for _, a := range asgs {
				for _, lateness := range []int64{0, 1, 60_000, hi} {
					times := timersOf(a, lateness, events)
					for _, wm := range marks {
						got, ok := NextTimer(a, lateness, wm)
						if !ok || (got <= wm && wm != hi) {
							t.Fatalf("%#v lateness %d: NextTimer(%d) = %d, %v: not after the watermark", a, lateness, wm, got, ok)
						}
						for x := range times {
							if x > wm && got > x {
								t.Fatalf("%#v lateness %d: NextTimer(%d) = %d, after a timer at %d", a, lateness, wm, got, x)
							}
						}
					}
				}
			}
		}
	}
}

func TestNextTimerOfSessionsIsUnknown(t *testing.T) {
	if _, ok := NextTimer(Session(5), 0, 0); ok {
		t.Fatal("session windows end where their records put them; NextTimer claimed to know")
	}
}
