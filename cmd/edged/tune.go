package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/watermark/tune"
)

func tuneCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune", stdout, stderr)
	path := fs.String("config", "", "daemon config file (YAML)")
	input := fs.String("input", "", "recording to measure, JSON lines in the replay format (edged record)")
	target := fs.String("target-late", "0.1%", "fraction of readings that may fall behind the watermark (0.1% or 0.001)")
	device := fs.String("device", "", "measure only this device (needed with --apply when the config has several)")
	topics := fs.Int("topics", 10, "rows per stream: the concrete topics with the largest P99.9 delay (0 = all)")
	apply := fs.String("apply", "", "write the device file with the recommendation to this file, replay the recording with both and compare")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" || *input == "" {
		return usageErrorf("--config and --input are required")
	}
	tgt, err := parseFraction(*target)
	if err != nil {
		return usageErrorf("--target-late: %v", err)
	}
	cfg, err := loadConfig(*path, stderr)
	if err != nil {
		return err
	}
	if *apply != "" && inDir(*apply, cfg.DevicesDir) {
		return usageErrorf("--apply %s: write it outside devices_dir (edged would load it as a second device), compare, then replace the device file", *apply)
	}
	if *apply != "" && *device == "" {
		if len(cfg.Devices) != 1 {
			return usageErrorf("--apply writes one device file: name its device with --device")
		}
		*device = cfg.Devices[0].ID
	}
	f, err := os.Open(*input)
	if err != nil {
		return err
	}
	// The tables go to stdout only after the reading: the line can share a terminal with them.
	prog := newProgress(stderr, nil, "tune: reading", "lines")
	streams, err := readRecording(cfg, prog.reader(f, fileSize(f)), *device)
	prog.finish()
	f.Close()
	if err != nil {
		return err
	}
	recs := make([]tune.Recommendation, len(streams))
	for i, t := range streams {
		recs[i] = printTuned(stdout, t, tgt, *topics)
	}
	if *apply == "" {
		return nil
	}
	return applyTuning(cfg, streams, recs, *input, *apply, stdout, stderr)
}

// inDir says whether file would sit directly in dir.
func inDir(file, dir string) bool {
	a, err1 := filepath.Abs(filepath.Dir(file))
	b, err2 := filepath.Abs(dir)
	return err1 == nil && err2 == nil && a == b
}

// parseFraction reads "0.1%" or "0.001" as parts per million.
func parseFraction(s string) (tune.PPM, error) {
	num, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(num, 64)
	scale := float64(tune.Whole)
	if pct {
		scale /= 100
	}
	ppm := math.Round(v * scale)
	if err != nil || math.IsNaN(v) || ppm < 0 || ppm >= float64(tune.Whole) {
		return 0, fmt.Errorf("%q is not a fraction from 0 up to (not including) 100%%", s)
	}
	return tune.PPM(ppm), nil
}

// printTuned writes one configured stream's table and returns its
// recommendation.
func printTuned(w io.Writer, t *tuned, target tune.PPM, rows int) tune.Recommendation {
	wm := t.stream.Watermark
	cur := t.stream.WatermarkConfig()
	fmt.Fprintf(w, "device %s, stream %s (%s): %s", t.device.ID, t.stream.Name, t.stream.Topic, cur.Strategy)
	if cur.Strategy == watermark.Bounded {
		fmt.Fprintf(w, ", max_out_of_orderness %v", wm.MaxOutOfOrderness)
	}
	fmt.Fprintf(w, ", idle_timeout %v\n", wm.IdleTimeout)
	all := t.summary()
	fmt.Fprintf(w, "  %d topics, %d readings, %d refused by the skew guard, %d undecodable\n", len(t.topics), all.Readings, all.Future, t.undecodable)
	if all.Readings == 0 {
		fmt.Fprint(w, "  nothing to measure\n\n")
		return tune.Recommendation{}
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "\n  delay behind max\treadings\tP50\tP90\tP99\tP99.9\tmax\tmax gap\n")
	for _, name := range worstTopics(t, rows) {
		delayRow(tw, name, tune.Pool(t.topics[name]))
	}
	delayRow(tw, "all topics", all)
	tw.Flush()

	rec := all.Recommend(target)
	// Idleness is checked when the watermark ticks: a shorter timeout acts as the interval.
	rec.IdleTimeout = max(rec.IdleTimeout, wm.Interval.Milliseconds())
	configured := cur.MaxOutOfOrderness
	if cur.Strategy != watermark.Bounded {
		configured = 0
	}
	fmt.Fprint(tw, "\n  bound\tlate\tlate %\textra latency (P50)\t\n")
	for _, b := range tune.Candidates(all.Delays, configured, rec.Bound) {
		n, frac := all.Late(b)
		lat := "-"
		if v, ok := all.ExtraLatency(b); ok {
			lat = ms(v)
		}
		note := ""
		switch {
		case b == rec.Bound && b == configured:
			note = "recommended, configured"
		case b == rec.Bound:
			note = "recommended"
		case b == configured:
			note = "configured"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\n", ms(b), n, percent(frac), lat, note)
	}
	tw.Flush()

	n, frac := all.Late(rec.Bound)
	fmt.Fprintf(w, "\n  for at most %s late: ", percent(target))
	switch cur.Strategy {
	case watermark.Punctuated:
		fmt.Fprint(w, "(punctuated: the device's marks set the watermark, no bound)")
		rec.HasBound = false
	default:
		fmt.Fprintf(w, "max_out_of_orderness %s (%d readings, %s late)", ms(rec.Bound), n, percent(frac))
		if cur.Strategy == watermark.Monotonous && rec.Bound > 0 {
			fmt.Fprint(w, " with strategy bounded")
		}
	}
	if rec.HasIdleTimeout {
		fmt.Fprintf(w, ", idle_timeout %s", ms(rec.IdleTimeout))
	}
	fmt.Fprint(w, "\n\n")
	return rec
}

// worstTopics are up to n topic names (all when n is 0), largest P99.9 delay
// first, then by name.
func worstTopics(t *tuned, n int) []string {
	names := t.names()
	p999 := make(map[string]int64, len(names))
	for _, name := range names {
		p999[name], _ = tune.NewDist(t.topics[name].Delays()).Quantile(999_000)
	}
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(p999[b], p999[a]) })
	if n > 0 && len(names) > n {
		names = names[:n]
	}
	return names
}

func delayRow(w io.Writer, name string, s tune.Summary) {
	fmt.Fprintf(w, "  %s\t%d", name, s.Readings)
	for _, q := range tune.Percentiles {
		v, _ := s.Delays.Quantile(q)
		fmt.Fprintf(w, "\t%s", ms(v))
	}
	gap := "-"
	if v, ok := s.Gaps.Quantile(tune.Whole); ok {
		gap = ms(v)
	}
	fmt.Fprintf(w, "\t%s\n", gap)
}

// ms formats milliseconds as a duration a config file accepts.
func ms(v int64) string { return (time.Duration(v) * time.Millisecond).String() }

// percent formats parts per million as a percentage to 4 decimals, exactly.
func percent(p tune.PPM) string { return fmt.Sprintf("%d.%04d%%", p/10_000, p%10_000) }
