package sim

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// Message is one reading as the simulator sends it.
type Message struct {
	At      int64 // send time, ms since the epoch
	TS      int64 // event time in the payload
	Sensor  int   // 1-based
	Late    bool  // held back by LateBy
	TooLate bool  // held back by TooLateBy
	Topic   string
	Payload []byte // {"sensor":"s-<i>","ts":<ms>,"temp":..,"hum":..}
}

// Feed yields a config's messages in send order (ties in generation order).
// Memory stays bounded by the readings in flight, so a feed of millions of
// readings can be streamed to a file or a broker.
type Feed struct {
	cfg     Config
	rng     *rand.Rand
	period  float64 // ms between two readings of one sensor
	order   []int   // sensors (0-based) by phase: the event-time order of one round
	phase   []float64
	temp    []int // tenths of a degree, a random walk per sensor
	hum     []int // tenths of a percent
	topics  []string
	names   []string
	round   int64
	next    int // index into order of the next reading to generate
	done    bool
	pending pending
	seq     uint64
}

// NewFeed validates cfg and returns its feed.
func NewFeed(cfg Config) (*Feed, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("simulator config: %w", err)
	}
	f := &Feed{
		cfg:    cfg,
		rng:    rand.New(rand.NewPCG(cfg.Seed, 0x5e15075)),
		period: 1000 / cfg.Rate,
	}
	n := cfg.Sensors
	f.phase = make([]float64, n)
	f.temp, f.hum = make([]int, n), make([]int, n)
	f.topics, f.names = make([]string, n), make([]string, n)
	f.order = make([]int, n)
	for i := range n {
		f.phase[i] = f.rng.Float64() * f.period
		f.temp[i] = 180 + f.rng.IntN(60)
		f.hum[i] = 350 + f.rng.IntN(200)
		f.names[i] = SensorName(i + 1)
		f.topics[i] = cfg.prefix() + "/" + f.names[i] + "/data"
		f.order[i] = i
	}
	slices.SortStableFunc(f.order, func(a, b int) int { return cmp.Compare(f.phase[a], f.phase[b]) })
	return f, nil
}

// SensorName is the name of sensor i (1-based) in topics and payloads.
func SensorName(i int) string { return "s-" + strconv.Itoa(i) }

// Next returns the next message in send order; false at the end of a bounded feed.
func (f *Feed) Next() (Message, bool) {
	for {
		if len(f.pending) > 0 && (f.done || f.pending[0].At <= f.nextTS()) {
			// Every reading not generated yet is sent at or after its event
			// time, which is at least nextTS, so the earliest pending one is due.
			return heap.Pop(&f.pending).(entry).Message, true
		}
		if f.done {
			return Message{}, false
		}
		f.generate()
	}
}

// nextTS is the event time of the next reading to generate.
func (f *Feed) nextTS() int64 {
	if f.done {
		return math.MaxInt64
	}
	return f.eventTime(f.order[f.next], f.round)
}

func (f *Feed) eventTime(sensor int, round int64) int64 {
	return f.cfg.Start + int64(math.Floor(f.phase[sensor]+float64(round)*f.period))
}

// generate makes the next reading in event-time order and queues it at its
// send time; it marks the feed done once event time passes Duration.
func (f *Feed) generate() {
	i := f.order[f.next]
	ts := f.eventTime(i, f.round)
	if f.next++; f.next == len(f.order) {
		f.next, f.round = 0, f.round+1
	}
	since := ts - f.cfg.Start
	if f.cfg.Duration > 0 && since >= f.cfg.Duration.Milliseconds() {
		f.done = true
		return
	}
	// The random draws happen for silent sensors too, so silencing sensors
	// does not change the other sensors' readings.
	h := f.holdBack()
	f.temp[i] = walk(f.temp[i]+f.rng.IntN(5)-2, 0, 400)
	f.hum[i] = walk(f.hum[i]+f.rng.IntN(5)-2, 50, 950)
	if i >= f.cfg.Sensors-f.cfg.Silent && f.cfg.silentAt(since) {
		return
	}
	m := Message{At: ts + h.delay, TS: ts, Sensor: i + 1, Late: h.late, TooLate: h.tooLate, Topic: f.topics[i], Payload: f.payload(i, ts)}
	heap.Push(&f.pending, entry{Message: m, seq: f.seq})
	f.seq++
}

func (f *Feed) holdBack() heldBack {
	c := &f.cfg
	return drawHeldBack(f.rng, c.Disorder, c.LateFraction, c.LateBy, c.TooLateFraction, c.TooLateBy)
}

// heldBack is how long after its event time a reading is sent, and why.
type heldBack struct {
	delay         int64 // ms
	late, tooLate bool
}

// drawHeldBack draws a reading's delay: up to disorder, or exactly lateBy for
// lateFraction of the readings, or exactly tooLateBy for tooLateFraction of the
// others. It draws nothing for a setting that is zero, so adding a setting
// leaves the feeds without it as they were.
func drawHeldBack(rng *rand.Rand, disorder time.Duration, lateFraction float64, lateBy time.Duration, tooLateFraction float64, tooLateBy time.Duration) heldBack {
	var h heldBack
	if d := disorder.Milliseconds(); d > 0 {
		h.delay = rng.Int64N(d + 1)
	}
	h.late = lateFraction > 0 && rng.Float64() < lateFraction
	if h.late {
		h.delay = lateBy.Milliseconds()
	} else if h.tooLate = tooLateFraction > 0 && rng.Float64() < tooLateFraction; h.tooLate {
		h.delay = tooLateBy.Milliseconds()
	}
	return h
}

func (f *Feed) payload(i int, ts int64) []byte {
	b := make([]byte, 0, 72)
	b = append(b, `{"sensor":"`...)
	b = append(b, f.names[i]...)
	b = append(b, `","ts":`...)
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, `,"temp":`...)
	b = appendTenths(b, f.temp[i])
	b = append(b, `,"hum":`...)
	b = appendTenths(b, f.hum[i])
	return append(b, '}')
}

// appendTenths writes a non-negative number of tenths as a decimal, e.g. 215 as 21.5.
func appendTenths(b []byte, t int) []byte {
	b = strconv.AppendInt(b, int64(t/10), 10)
	b = append(b, '.')
	return strconv.AppendInt(b, int64(t%10), 10)
}

func walk(v, lo, hi int) int { return min(max(v, lo), hi) }

// pending is a min-heap of generated readings by send time, then generation order.
type pending []entry

type entry struct {
	Message
	seq uint64
}

func (p pending) Len() int { return len(p) }
func (p pending) Less(i, j int) bool {
	if p[i].At != p[j].At {
		return p[i].At < p[j].At
	}
	return p[i].seq < p[j].seq
}
func (p pending) Swap(i, j int) { p[i], p[j] = p[j], p[i] }
func (p *pending) Push(x any)   { *p = append(*p, x.(entry)) }
func (p *pending) Pop() any {
	old := *p
	e := old[len(old)-1]
	*p = old[:len(old)-1]
	return e
}
