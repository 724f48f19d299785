package main

import (
	"fmt"
	"time"

	"github.com/edged/edged/internal/sim"
)

// Stream names of the soak's device file: the fixed sensors' readings belong to
// sensorStream, the tags' to tagStream (soakDevice).
const (
	sensorStream = "sensors"
	tagStream    = "tags"
)

// site is what a soak replays: a feed of fixed sensors, a feed of tags that
// come and go, or both, cut into days of replay, and the edged config they go
// through. The checker needs no more than this to know what edged must output.
type site struct {
	start   int64         // event time and send time of the first day's beginning, ms since the epoch
	day     time.Duration // the span of one replay (one process) of the feed
	days    int
	sensors *sim.Config    // nil: no fixed sensors
	tags    *sim.TagConfig // nil: no tags
	daemon  string         // the daemon file (YAML), without devices_dir
	device  string         // the device file (YAML)
}

// reading is one message of the site's feed with what the checker needs to
// know about it.
type reading struct {
	sim.Message
	stream string // sensorStream or tagStream
	key    string // the sensor's or the tag's name
}

// siteFeed merges the sensors' and the tags' feeds in send order (the sensors
// first on a tie), so each stays deterministic on its own.
type siteFeed struct {
	sensors *sim.Feed
	tags    *sim.TagFeed
	next    [2]*reading // the head of each feed; nil once it ended
}

func newSiteFeed(s *site) (*siteFeed, error) {
	f := &siteFeed{}
	if s.sensors != nil {
		feed, err := sim.NewFeed(*s.sensors)
		if err != nil {
			return nil, err
		}
		f.sensors = feed
		f.pull(0)
	}
	if s.tags != nil {
		feed, err := sim.NewTagFeed(*s.tags)
		if err != nil {
			return nil, err
		}
		f.tags = feed
		f.pull(1)
	}
	if f.next[0] == nil && f.next[1] == nil {
		return nil, fmt.Errorf("the site has neither sensors nor tags")
	}
	return f, nil
}

// pull reads the next message of feed i (0 sensors, 1 tags) into f.next[i].
func (f *siteFeed) pull(i int) {
	f.next[i] = nil
	if i == 0 {
		if m, ok := f.sensors.Next(); ok {
			f.next[0] = &reading{Message: m, stream: sensorStream, key: sim.SensorName(m.Sensor)}
		}
		return
	}
	if m, ok := f.tags.Next(); ok {
		f.next[1] = &reading{Message: m, stream: tagStream, key: sim.TagName(m.Sensor)}
	}
}

// peek returns the next reading without taking it; nil at the end.
func (f *siteFeed) peek() *reading {
	i := f.head()
	if i < 0 {
		return nil
	}
	return f.next[i]
}

// take returns the next reading and moves on; nil at the end.
func (f *siteFeed) take() *reading {
	i := f.head()
	if i < 0 {
		return nil
	}
	r := f.next[i]
	f.pull(i)
	return r
}

func (f *siteFeed) head() int {
	switch a, b := f.next[0], f.next[1]; {
	case a == nil && b == nil:
		return -1
	case b == nil || a != nil && a.At <= b.At:
		return 0
	default:
		return 1
	}
}
