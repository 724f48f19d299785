package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/valyala/fastjson"
	"gopkg.in/yaml.v3"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/watermark/tune"
)

// applyTuning writes the device file with the recommendations to out, then
// replays the recording with the configured and the tuned device and prints
// what changed, with a progress line on stderr if it is a terminal. streams are
// one device's, recs their recommendations.
func applyTuning(cfg *configs.Daemon, streams []*tuned, recs []tune.Recommendation, input, out string, stdout, stderr io.Writer) error {
	dev := streams[0].device
	src, err := os.ReadFile(dev.Path)
	if err != nil {
		return err
	}
	edited, err := tunedDeviceFile(dev.Path, src, streams, recs)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, edited, 0o644); err != nil {
		return err
	}
	newDev, err := configs.LoadDevice(out)
	if err != nil {
		return fmt.Errorf("the tuned device file does not validate: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s (from %s)\n", out, dev.Path)

	tunedCfg := *cfg
	tunedCfg.Devices = make([]*configs.Device, len(cfg.Devices))
	for i, d := range cfg.Devices {
		tunedCfg.Devices[i] = d
		if d == dev {
			tunedCfg.Devices[i] = newDev
		}
	}
	before, err := replayTally(cfg, input, dev.ID, newProgress(stderr, nil, "tune: replay as configured", "lines"))
	if err != nil {
		return fmt.Errorf("replaying with %s: %w", dev.Path, err)
	}
	after, err := replayTally(&tunedCfg, input, dev.ID, newProgress(stderr, nil, "tune: replay as tuned", "lines"))
	if err != nil {
		return fmt.Errorf("replaying with %s: %w", out, err)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nreplay of device %s\tconfigured\ttuned\tdifference\n", dev.ID)
	row := func(name string, a, b int64, f func(int64) string) {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", name, f(a), f(b), f(b-a))
	}
	count := func(v int64) string { return fmt.Sprint(v) }
	row("on-time firings", int64(before.onTime), int64(after.onTime), count)
	row("late updates (re-fired windows)", int64(before.lateUpdates), int64(after.lateUpdates), count)
	row("late records (side output)", int64(before.late), int64(after.late), count)
	for _, q := range []struct {
		name string
		q    tune.PPM
	}{{"firing delay P50", tune.Whole / 2}, {"firing delay P99", 990_000}} {
		a, okA := tune.NewDist(before.delays).Quantile(q.q)
		b, okB := tune.NewDist(after.delays).Quantile(q.q)
		if okA && okB {
			row(q.name, a, b, ms)
		}
	}
	tw.Flush()
	fmt.Fprint(stdout, "  firing delay: emitted_at - window end of on-time results; windows still open at the end of the recording are not counted\n")
	return nil
}

// tunedDeviceFile is the device file src with each stream's recommendation
// written into its watermark settings; comments and order are kept, and each
// changed value says what it was.
func tunedDeviceFile(path string, src []byte, streams []*tuned, recs []tune.Recommendation) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	list := child(doc.Content[0], "streams")
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: streams: not a list", path)
	}
	for i, t := range streams {
		r := recs[i]
		item := streamNode(list, t.stream.Name)
		if item == nil {
			return nil, fmt.Errorf("%s: streams: no stream named %s", path, t.stream.Name)
		}
		wm := child(item, "watermark")
		if wm == nil {
			wm = &yaml.Node{Kind: yaml.MappingNode}
			item.Content = append(item.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "watermark"}, wm)
		}
		wc := t.stream.WatermarkConfig()
		switch {
		case !r.HasBound || wc.Strategy == watermark.Punctuated:
		case wc.Strategy == watermark.Monotonous && r.Bound == 0:
			// Monotonous already is bound 0, and validation refuses a bound beside it.
		case wc.Strategy == watermark.Monotonous:
			set(wm, "strategy", "bounded", "monotonous")
			fallthrough
		default:
			set(wm, "max_out_of_orderness", ms(r.Bound), t.stream.Watermark.MaxOutOfOrderness.String())
		}
		if r.HasIdleTimeout {
			set(wm, "idle_timeout", ms(r.IdleTimeout), t.stream.Watermark.IdleTimeout.String())
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// child is the value of key in mapping m, or nil.
func child(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func streamNode(list *yaml.Node, name string) *yaml.Node {
	for _, item := range list.Content {
		if n := child(item, "name"); n != nil && n.Value == name {
			return item
		}
	}
	return nil
}

// set gives key the value v in mapping m, noting the previous value was.
func set(m *yaml.Node, key, v, was string) {
	note := "set by edged tune (was " + was + ")"
	if n := child(m, key); n != nil {
		if n.Value != v {
			n.Value, n.Tag, n.Style, n.LineComment = v, "!!str", 0, note
		}
		return
	}
	m.Content = append(m.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Value: v, LineComment: note})
}

// tally is what a replay produced for one device.
type tally struct {
	onTime, lateUpdates, late int
	delays                    []int64 // emitted_at - end of on-time results, ms
	line                      []byte
	p                         fastjson.Parser
	device                    string
}

// replayTally replays input with cfg, leaving windows open at the end (their
// firing would be the recording's end, not a watermark's), and counts
// device's results and late records, showing prog (may be nil) meanwhile.
func replayTally(cfg *configs.Daemon, input, device string, prog *progress) (*tally, error) {
	f, err := os.Open(input)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &tally{device: device}
	_, err = actors.Replay(actors.ReplayOptions{Config: cfg, Input: prog.reader(f, fileSize(f)), Output: t, KeepOpen: true})
	prog.finish()
	return t, err
}

// Write takes replay output, which arrives in whole or split lines.
func (t *tally) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.line = append(t.line, b...)
			break
		}
		t.line = append(t.line, b[:i]...)
		t.count(t.line)
		t.line, b = t.line[:0], b[i+1:]
	}
	return n, nil
}

func (t *tally) count(line []byte) {
	v, err := t.p.ParseBytes(line)
	if err != nil {
		return
	}
	if l := v.Get("late"); l != nil {
		if string(l.GetStringBytes("device")) == t.device {
			t.late++
		}
		return
	}
	if string(v.GetStringBytes("device")) != t.device {
		return
	}
	switch string(v.GetStringBytes("kind")) {
	case "on_time":
		t.onTime++
		t.delays = append(t.delays, v.GetInt64("emitted_at")-v.GetInt64("end"))
	case "late_update":
		t.lateUpdates++
	}
}
