package status

import (
	"math"
	"time"
)

// How fast a topic's watermark moves, in event time per processing time: 1 for a
// sensor that reports in real time, more for one catching up on a backlog, 0 for
// one that stopped. /explain estimates from it when a window fires. A watermark
// moves in steps, a sensor's reading at a time, so the sampler keeps a moving
// average over about speedSpan rather than the last interval's rate.

// speedSpan is the time constant of the moving average.
const speedSpan = 30 * time.Second

// speedWeight is the weight of a rate measured over dt seconds in the average.
func speedWeight(dt float64) float64 {
	return 1 - math.Exp(-dt/speedSpan.Seconds())
}

// measureSpeed adds the watermark's move since the previous sample, dt seconds
// ago, to the topic's average. Called by the sampler, under its lock.
func (t *Topic) measureSpeed(now int64, dt, alpha float64) {
	wm := t.WatermarkAt(now)
	if t.sampled && dt > 0 && t.prevWM != 0 && wm != 0 {
		rate := (wm - t.prevWM) / dt
		if t.speedKnown {
			rate = float64(t.speed) + alpha*(rate-float64(t.speed))
		}
		t.speed, t.speedKnown = float32(rate), true
	}
	t.prevWM = wm
}

// speedNow returns how fast the topic's watermark moved lately, if measured.
// Called under the sampler's lock.
func (t *Topic) speedNow() (float64, bool) { return float64(t.speed), t.speedKnown }
