package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fastjson"

	"github.com/edged/edged/internal/sim"
	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// speedup is how much faster than the wall clock event time runs in the
// high-rate live trials, so the 10 s tumbling windows close while the publisher
// is still publishing: a 5 s trial covers 30 s of event time, and every sensor's
// first two windows fire within it. The gateway trials (gateway.go) run event
// time at the wall clock's pace, as sensors do.
const speedup = 6

// windowMS is the benchmark config's tumbling window size.
const windowMS = 10_000

// boundMS is the benchmark config's max_out_of_orderness.
const boundMS = 500

// mark is a message that raised its sensor's highest event time, and when it
// was handed to the MQTT client.
type mark struct {
	ts int64
	at time.Time
}

// sent is what a live trial's publisher handed to the broker.
type sent struct {
	events []oracle.Event    // every message published, in send order
	marks  map[string][]mark // by sensor, in send order
	total  int
	bytes  int64         // payload bytes of every message published
	failed int           // publishes refused or never confirmed
	paced  time.Duration // from the first publish to the last one handed over
	lagged bool          // the publisher fell behind the pace
}

// connectPublisher connects the client publishFeed publishes through.
func connectPublisher(ctx context.Context, url string) (*mqtt.Client, error) {
	return mqtt.Connect(ctx, mqtt.Options{
		URL: url, ClientID: fmt.Sprintf("bench-pub-%d", time.Now().UnixNano()), CleanSession: true, Logger: discardLogger(),
	})
}

// publishFeed publishes rate msg/s for span of wall time from sensors
// sensors, event time running pace times as fast as the wall clock, sending what
// is due every every, and waits until every publish is confirmed (QoS 1:
// acknowledged by the broker). onPaced runs when the last message has been
// handed over.
func publishFeed(ctx context.Context, pub *mqtt.Client, qos byte, rate float64, sensors int, span time.Duration, pace int64, every time.Duration, onPaced func()) (*sent, error) {
	now := time.Now().UnixMilli()
	start := now - now%windowMS // the first window is whole
	feed, err := sim.NewFeed(sim.Config{
		Sensors: sensors, Rate: rate / float64(sensors) / float64(pace), Duration: span * time.Duration(pace),
		Disorder: boundMS * time.Millisecond, Seed: 2, Start: start,
	})
	if err != nil {
		return nil, err
	}
	s := &sent{marks: map[string][]mark{}}
	var ok, settled atomic.Int64
	var wg sync.WaitGroup
	done := func(err error) {
		if err == nil {
			ok.Add(1)
		}
		settled.Add(1)
		wg.Done()
	}
	var p fastjson.Parser
	began := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	m, more := feed.Next()
	for more && ctx.Err() == nil {
		due := start + time.Since(began).Milliseconds()*pace
		for more && m.At <= due {
			v, err := p.ParseBytes(m.Payload)
			if err != nil {
				return nil, err
			}
			key := string(v.GetStringBytes("sensor"))
			wg.Add(1)
			at := time.Now()
			pub.Publish(m.Topic, qos, m.Payload, done)
			s.total++
			s.bytes += int64(len(m.Payload))
			s.events = append(s.events, oracle.Event{Key: key, TS: m.TS, Values: []windows.Value{windows.NumberValue(v.GetFloat64("temp"))}})
			if ms := s.marks[key]; len(ms) == 0 || m.TS > ms[len(ms)-1].ts {
				s.marks[key] = append(ms, mark{ts: m.TS, at: at})
			}
			m, more = feed.Next()
		}
		if more {
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	}
	s.paced = time.Since(began)
	// The feed's last sends are due one disorder bound after its span.
	s.lagged = s.paced > span+time.Duration(boundMS/pace+paceSlack)*time.Millisecond
	onPaced()
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
	}
	s.failed = s.total - int(ok.Load())
	return s, nil
}

// paceSlack is how far, in ms, the publisher may finish behind its schedule
// and still count as keeping the pace.
const paceSlack = 100

// passedAt is when the message that moved key's watermark past a window ending
// at end was published (bounded watermark M-bound-1 >= end-1), or false.
func (s *sent) passedAt(key string, end int64) (time.Time, bool) {
	for _, m := range s.marks[key] {
		if m.ts >= end+boundMS {
			return m.at, true
		}
	}
	return time.Time{}, false
}
