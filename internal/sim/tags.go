package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// TagConfig shapes a feed of tags that come and go for good (asset tags,
// vehicles, BLE beacons): a cohort of Cohort new tags begins every Every, and
// each of its tags reports every Period for Life, then never again. With Life
// equal to Every, Cohort tags are live at any time and a new Cohort arrive each
// Every. Times are in milliseconds since the epoch.
type TagConfig struct {
	Cohort int // tags per cohort; cohort c holds t-<c*Cohort+1> .. t-<(c+1)*Cohort>
	Every  time.Duration
	Life   time.Duration
	Period time.Duration
	// Duration is the span of event time the feed covers; 0 = endless.
	Duration time.Duration
	// Disorder, LateFraction, LateBy, TooLateFraction and TooLateBy hold
	// readings back as in Config, except that a tag only sends a held-back
	// reading while it is still around: one that would arrive after the tag's
	// last reading is sent within Disorder instead.
	Disorder        time.Duration
	LateFraction    float64
	LateBy          time.Duration
	TooLateFraction float64
	TooLateBy       time.Duration
	Seed            uint64
	Start           int64
	// Topic is the topic of a tag's readings, "{tag}" standing for its name:
	// "tags/{tag}" (the default) gives every tag a topic of its own, "tags" one
	// topic to all.
	Topic string
}

// DefaultTagTopic is the topic template of TagConfig.Topic.
const DefaultTagTopic = "tags/{tag}"

// Validate reports every setting out of range at once.
func (c *TagConfig) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Cohort < 1 {
		bad("cohort is %d tags: at least 1 is needed", c.Cohort)
	}
	if c.Every <= 0 || c.Life <= 0 || c.Period < time.Millisecond {
		bad("every, life and period must be above 0 (period at least 1ms)")
	}
	if c.Duration < 0 || c.Disorder < 0 || c.LateBy < 0 || c.TooLateBy < 0 {
		bad("duration, disorder, late-by and too-late-by must not be negative")
	}
	checkHeldBack(bad, c.LateFraction, c.LateBy, c.TooLateFraction, c.TooLateBy)
	return errors.Join(errs...)
}

// TagName is the name of tag n (1-based) in topics and payloads.
func TagName(n int) string { return "t-" + strconv.Itoa(n) }

// TagFeed yields a TagConfig's messages in send order (ties in generation
// order), as Feed does; a message's Sensor is its tag's number. Memory stays
// bounded by the live tags and the readings in flight.
type TagFeed struct {
	cfg     TagConfig
	rng     *rand.Rand
	end     int64 // event time the feed stops at; math.MaxInt64 if endless
	cohort  int   // the next cohort to begin
	live    tagHeap
	pending pending
	seq     uint64
}

// liveTag is a tag between its first and its last reading.
type liveTag struct {
	n      int
	name   string
	topic  string
	next   int64 // event time of its next reading
	last   int64 // event time of its last reading
	rssi   int   // dBm, a random walk
	period int64
}

// NewTagFeed validates cfg and returns its feed.
func NewTagFeed(cfg TagConfig) (*TagFeed, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("tag simulator config: %w", err)
	}
	if cfg.Topic == "" {
		cfg.Topic = DefaultTagTopic
	}
	f := &TagFeed{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x7a65)), end: math.MaxInt64}
	if cfg.Duration > 0 {
		f.end = cfg.Start + cfg.Duration.Milliseconds()
	}
	return f, nil
}

// Next returns the next message in send order; false at the end of a bounded feed.
func (f *TagFeed) Next() (Message, bool) {
	for {
		next := f.nextTS()
		if len(f.pending) > 0 && f.pending[0].At <= next {
			// Every reading not generated yet is sent at or after its event
			// time, which is at least next, so the earliest pending one is due.
			return heap.Pop(&f.pending).(entry).Message, true
		}
		if next == math.MaxInt64 {
			return Message{}, false
		}
		f.generate()
	}
}

// cohortStart is the event time cohort c begins at.
func (f *TagFeed) cohortStart(c int) int64 {
	return f.cfg.Start + int64(c)*f.cfg.Every.Milliseconds()
}

// nextTS is a lower bound of the event time of the next reading to generate:
// the next live tag's reading, or the next cohort's beginning; math.MaxInt64
// once there is neither.
func (f *TagFeed) nextTS() int64 {
	next := int64(math.MaxInt64)
	if c := f.cohortStart(f.cohort); c < f.end {
		next = c
	}
	if len(f.live) > 0 {
		next = min(next, f.live[0].next)
	}
	return next
}

// generate admits the next cohort if it begins before the next live tag's
// reading, else makes that reading and queues it at its send time.
func (f *TagFeed) generate() {
	if c := f.cohortStart(f.cohort); c < f.end && (len(f.live) == 0 || c <= f.live[0].next) {
		f.admit(c)
		return
	}
	t := f.live[0]
	ts := t.next
	h := drawHeldBack(f.rng, f.cfg.Disorder, f.cfg.LateFraction, f.cfg.LateBy, f.cfg.TooLateFraction, f.cfg.TooLateBy)
	if (h.late || h.tooLate) && ts+h.delay > t.last {
		h = heldBack{delay: min(h.delay, f.cfg.Disorder.Milliseconds())}
	}
	t.rssi = walk(t.rssi+f.rng.IntN(5)-2, -95, -30)
	m := Message{At: ts + h.delay, TS: ts, Sensor: t.n, Late: h.late, TooLate: h.tooLate, Topic: t.topic, Payload: tagPayload(t.name, ts, t.rssi)}
	heap.Push(&f.pending, entry{Message: m, seq: f.seq})
	f.seq++
	if t.next += t.period; t.next > t.last {
		heap.Pop(&f.live)
	} else {
		heap.Fix(&f.live, 0)
	}
}

// admit starts the tags of the next cohort, which begins at start.
func (f *TagFeed) admit(start int64) {
	period := f.cfg.Period.Milliseconds()
	stop := min(start+f.cfg.Life.Milliseconds(), f.end) // no reading at or after it
	for i := range f.cfg.Cohort {
		n := f.cohort*f.cfg.Cohort + i + 1
		first := start + f.rng.Int64N(period)
		rssi := -90 + f.rng.IntN(50)
		if first >= stop {
			continue
		}
		name := TagName(n)
		heap.Push(&f.live, &liveTag{
			n: n, name: name, topic: strings.ReplaceAll(f.cfg.Topic, "{tag}", name),
			next: first, last: first + (stop-1-first)/period*period, rssi: rssi, period: period,
		})
	}
	f.cohort++
}

func tagPayload(name string, ts int64, rssi int) []byte {
	b := make([]byte, 0, 56)
	b = append(b, `{"tag":"`...)
	b = append(b, name...)
	b = append(b, `","ts":`...)
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, `,"rssi":`...)
	b = strconv.AppendInt(b, int64(rssi), 10)
	return append(b, '}')
}

// tagHeap orders live tags by their next reading, then by number.
type tagHeap []*liveTag

func (h tagHeap) Len() int { return len(h) }
func (h tagHeap) Less(i, j int) bool {
	if h[i].next != h[j].next {
		return h[i].next < h[j].next
	}
	return h[i].n < h[j].n
}
func (h tagHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *tagHeap) Push(x any)   { *h = append(*h, x.(*liveTag)) }
func (h *tagHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}
