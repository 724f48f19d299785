package status

import (
	"math"
	"slices"
)

// What /explain reads of one topic: its row as of now, with its idleness as its
// source set it last rather than as the sampler saw it, and its watermark's speed.

// StreamNow is one topic of one device as /explain shows it.
type StreamNow struct {
	Row        StreamStatus
	Speed      float64 // event time per processing time, lately; if SpeedKnown
	SpeedKnown bool
}

// StreamNow returns the state of topic of device at processing time now (ms),
// false if no source of the device ever had it (or it was forgotten).
func (s *Sampler) StreamNow(device, topic string, now int64) (StreamNow, bool) {
	t := s.streams.find(device, topic)
	if t == nil {
		return StreamNow{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	x := StreamNow{Row: streamRow(t, now)}
	x.Row.Idle = t.Idle.Get() == 1
	speed, known := t.speedNow()
	x.Speed, x.SpeedKnown = math.Round(speed*1000)/1000, known // to what a moving average says
	return x, true
}

// DevicesOf returns the devices that have topic, sorted.
func (s *Stats) DevicesOf(topic string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for device, byTopic := range s.topics {
		if byTopic[topic] != nil {
			out = append(out, device)
		}
	}
	slices.Sort(out)
	return out
}

// find returns the statistics of a topic of device, nil if it has none.
func (s *Stats) find(device, topic string) *Topic {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.topics[device][topic]
}
