package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/sim"
)

// dayRow is one line of the soak's table.
type dayRow struct {
	day      int // 1-based; 0 is the closing replay
	readings int
	run      replayRun
	check    dayCheck
	open     int // windows the oracle still holds open after the day
}

// soak replays s one day per `edged replay` (bin) into one data dir under
// dir, each with --keep-open, then once more with no input and without it so
// that every window closes. It checks each replay's output against the oracle
// and calls each with every row as soon as the row is done.
func soak(s *site, bin, dir string, log io.Writer, each func(dayRow)) ([]dayRow, error) {
	config, err := writeConfig(s, filepath.Join(dir, "config"))
	if err != nil {
		return nil, err
	}
	cfg, err := configs.Load(config)
	if err != nil {
		return nil, fmt.Errorf("loading the soak's config: %w", err)
	}
	chk, err := newChecker(cfg.Devices[0], log)
	if err != nil {
		return nil, err
	}
	feed, err := newSiteFeed(s)
	if err != nil {
		return nil, err
	}
	job := replayJob{bin: bin, config: config, data: filepath.Join(dir, "data"),
		output: filepath.Join(dir, "output.jsonl"), metrics: filepath.Join(dir, "metrics.txt"), keepOpen: true, log: log}
	var rows []dayRow
	for d := 1; d <= s.days+1; d++ {
		row := dayRow{day: d}
		end := s.start + int64(d)*s.day.Milliseconds()
		switch d {
		case s.days: // the last day takes what was held back past the feed's end
			end = math.MaxInt64
		case s.days + 1: // the closing replay
			row.day, end, job.keepOpen = 0, s.start, false
		}
		job.input = filepath.Join(dir, fmt.Sprintf("day-%d.jsonl", d))
		var last int64
		if row.readings, last, err = writeDay(feed, chk, job.input, end); err != nil {
			return rows, err
		}
		if row.run, err = job.run(); err != nil {
			return rows, err
		}
		if err := chk.readOutput(job.output); err != nil {
			return rows, err
		}
		if row.day == 0 {
			last = math.MaxInt64
		}
		chk.settle(last)
		row.check, row.open = chk.endDay(row.run.dropped), chk.open()
		if err := os.Remove(job.input); err != nil {
			return rows, err
		}
		rows = append(rows, row)
		each(row)
	}
	return rows, nil
}

// writeDay writes the feed's readings sent before end to path in the replay
// format and offers each to the checker; it returns their number and the send
// time of the last one.
func writeDay(feed *siteFeed, chk *checker, path string, end int64) (int, int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	var (
		n    int
		last int64
		line []byte
	)
	for r := feed.peek(); r != nil && r.At < end; r = feed.peek() {
		feed.take()
		line = sim.AppendReplayLine(line[:0], r.At, r.Topic, r.Payload)
		if _, err := w.Write(line); err != nil {
			f.Close()
			return n, last, fmt.Errorf("writing %s: %w", path, err)
		}
		if err := chk.offer(r); err != nil {
			f.Close()
			return n, last, err
		}
		n, last = n+1, r.At
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return n, last, fmt.Errorf("writing %s: %w", path, err)
	}
	return n, last, f.Close()
}

// writeConfig writes the site's daemon and device files under dir and returns
// the daemon file's path.
func writeConfig(s *site, dir string) (string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "devices"), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "devices", "site.yaml"), []byte(s.device), 0o644); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "edged.yaml")
	return path, os.WriteFile(path, []byte(s.daemon+"devices_dir: devices\n"), 0o644)
}
