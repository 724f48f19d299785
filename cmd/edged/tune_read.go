package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/valyala/fastjson"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/watermark/tune"
)

// tuned is one configured stream (a topic filter of a device) and what its
// concrete topics' readings showed.
type tuned struct {
	device      *configs.Device
	stream      *configs.Stream
	ext         *mqtt.Extractor
	topics      map[string]*tune.Stream
	undecodable int
}

// names lists the stream's concrete topics in name order.
func (t *tuned) names() []string {
	out := make([]string, 0, len(t.topics))
	for name := range t.topics {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// summary pools every concrete topic of the stream.
func (t *tuned) summary() tune.Summary {
	all := make([]*tune.Stream, 0, len(t.topics))
	for _, name := range t.names() {
		all = append(all, t.topics[name])
	}
	return tune.Pool(all...)
}

// readRecording measures every reading of a recording (the replay format) on
// the stream that would take it: per device, the first stream whose filter
// matches the topic, as the daemon routes. Watermark lines are skipped: they
// move watermarks, not event times. only, if not empty, selects a device.
func readRecording(cfg *configs.Daemon, in io.Reader, only string) ([]*tuned, error) {
	var streams []*tuned
	for _, d := range cfg.Devices {
		if only != "" && d.ID != only {
			continue
		}
		for _, s := range d.Streams {
			spec, err := actors.StreamSpec(s, cfg.Limits.MaxKeyBytes)
			if err != nil {
				return nil, fmt.Errorf("%s: stream %s: %w", d.Path, s.Name, err)
			}
			streams = append(streams, &tuned{device: d, stream: s, ext: mqtt.NewExtractor(spec), topics: map[string]*tune.Stream{}})
		}
	}
	if len(streams) == 0 {
		return nil, usageErrorf("no device %q in the config", only)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<16), 16<<20)
	var (
		p       fastjson.Parser
		reading mqtt.Reading
		line    int
	)
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		v, err := p.ParseBytes(b)
		if err != nil {
			return nil, fmt.Errorf("recording line %d: %w", line, err)
		}
		topic := string(v.GetStringBytes("topic"))
		if topic == "" {
			continue // an explicit watermark
		}
		at, err := v.Get("at").Int64()
		if err != nil {
			return nil, fmt.Errorf("recording line %d: \"at\" (processing time in ms): %w", line, err)
		}
		payload := v.Get("payload")
		var raw []byte
		switch {
		case payload == nil:
		case payload.Type() == fastjson.TypeString:
			raw = payload.GetStringBytes() // replayed as the bytes it holds
		default:
			raw = payload.MarshalTo(nil)
		}
		var device *configs.Device
		for _, t := range streams {
			if t.device == device || !mqtt.TopicMatch(t.stream.Topic, topic) {
				continue
			}
			device = t.device // a device's first matching stream takes the topic
			if err := t.ext.Extract(topic, raw, &reading); err != nil {
				t.undecodable++
				continue
			}
			if !reading.HasTS {
				continue // a punctuation marker only
			}
			st := t.topics[topic]
			if st == nil {
				st = tune.NewStream(t.stream.WatermarkConfig())
				t.topics[topic] = st
			}
			st.Observe(reading.TS, at)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the recording: %w", err)
	}
	return streams, nil
}
