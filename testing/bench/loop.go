package main

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/valyala/fastjson"
)

// The yardstick: the same file, the same per-sensor 10 s tumbling windows with
// count/sum/min/max and a DDSketch for p95, a bounded-disorder watermark per
// sensor that closes windows, and nothing else (no actors, no state store, no
// output format).
const (
	loopWindow = 10_000
	loopBound  = 500
)

type loopAcc struct {
	count         int64
	sum, min, max float64
	p95           *ddsketch.DDSketch
}

type loopSensor struct {
	max  int64
	open map[int64]*loopAcc // by window start
}

func childLoop(a *childArgs) (*measurement, error) {
	f, err := os.Open(a.input)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(bufio.NewReaderSize(f, 1<<20))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	var p fastjson.Parser
	sensors := map[string]*loopSensor{}
	m := &measurement{}
	var sink float64 // keeps the results alive
	for sc.Scan() {
		v, err := p.ParseBytes(sc.Bytes())
		if err != nil {
			return nil, err
		}
		topic := v.GetStringBytes("topic")
		key := topicSegment(topic, 1)
		pl := v.Get("payload")
		ts, temp := pl.GetInt64("ts"), pl.GetFloat64("temp")
		s := sensors[string(key)]
		if s == nil {
			s = &loopSensor{max: math.MinInt64, open: map[int64]*loopAcc{}}
			sensors[string(key)] = s
		}
		m.Events++
		start := ts - ts%loopWindow
		acc := s.open[start]
		if acc == nil {
			sk, _ := ddsketch.NewDefaultDDSketch(0.01)
			acc = &loopAcc{min: math.Inf(1), max: math.Inf(-1), p95: sk}
			s.open[start] = acc
		}
		acc.count++
		acc.sum += temp
		acc.min, acc.max = math.Min(acc.min, temp), math.Max(acc.max, temp)
		_ = acc.p95.Add(temp)
		if ts > s.max {
			s.max = ts
			wm := ts - loopBound - 1
			for st, acc := range s.open {
				if st+loopWindow-1 <= wm {
					sink += fire(acc)
					m.Results++
					delete(s.open, st)
				}
			}
		}
	}
	for _, s := range sensors {
		for _, acc := range s.open {
			sink += fire(acc)
			m.Results++
		}
	}
	if math.IsNaN(sink) {
		return nil, errors.New("impossible result")
	}
	return m, sc.Err()
}

func fire(a *loopAcc) float64 {
	q, _ := a.p95.GetValueAtQuantile(0.95)
	return float64(a.count) + a.sum/float64(a.count) + a.min + a.max + q
}

func topicSegment(topic []byte, i int) []byte {
	for ; i > 0; i-- {
		j := bytes.IndexByte(topic, '/')
		if j < 0 {
			return nil
		}
		topic = topic[j+1:]
	}
	if j := bytes.IndexByte(topic, '/'); j >= 0 {
		return topic[:j]
	}
	return topic
}
