package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/sim"
	"github.com/edged/edged/mqtt"
)

// logQuiet is the log setting of the helper commands: only trouble is worth a line.
var logQuiet = configs.Log{Format: "text", Level: "warn"}

func simulateCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("simulate", stdout, stderr)
	broker := fs.String("broker", "tcp://127.0.0.1:1883", "MQTT broker URL to publish to")
	sensors := fs.Int("sensors", 10, "number of sensors (s-1 .. s-N)")
	rate := fs.Float64("rate", 1, "readings per second of each sensor")
	duration := fs.Duration("duration", time.Minute, "span of event time to simulate")
	disorder := fs.Duration("disorder", 200*time.Millisecond, "readings are sent up to this long after their event time")
	lateFraction := fs.Float64("late-fraction", 0, "fraction of readings held back and sent late")
	lateBy := fs.Duration("late-by", 5*time.Second, "how long after its event time a late reading is sent")
	silent := fs.Int("silent", 0, "number of sensors (the last ones) that stop halfway")
	seed := fs.Uint64("seed", 1, "random seed: the same seed and start give the same feed")
	start := fs.String("start", "", "event time of the feed's beginning: ms since the epoch or RFC 3339 (default now)")
	qos := fs.Uint("qos", 1, "MQTT QoS of the publishes (0 or 1)")
	prefix := fs.String("topic-prefix", sim.DefaultTopicPrefix, "topics are <prefix>/s-<i>/data")
	output := fs.String("output", "", "write the feed in the replay format to this file instead of publishing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *qos > 1 {
		return fmt.Errorf("--qos %d: use 0 or 1", *qos)
	}
	begin, err := parseStart(*start, time.Now())
	if err != nil {
		return err
	}
	if *duration <= 0 {
		return errors.New("--duration must be above 0")
	}
	cfg := sim.Config{
		Sensors: *sensors, Rate: *rate, Duration: *duration, Disorder: *disorder,
		LateFraction: *lateFraction, LateBy: *lateBy, Silent: *silent, SilentAfter: *duration / 2,
		Seed: *seed, Start: begin, TopicPrefix: *prefix,
	}
	if *lateFraction == 0 {
		cfg.LateBy = 0
	}
	feed, err := sim.NewFeed(cfg)
	if err != nil {
		return err
	}
	var summary sim.Summary
	if *output != "" {
		summary, err = simulateToFile(feed, *output)
	} else {
		summary, err = simulateToBroker(feed, *broker, byte(*qos), stderr)
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(summary)
}

// parseStart reads --start: empty is now, digits are ms since the epoch,
// anything else must be RFC 3339.
func parseStart(s string, now time.Time) (int64, error) {
	if s == "" {
		return now.UnixMilli(), nil
	}
	return parseTimeFlag("--start", s)
}

// parseTimeFlag reads a time flag given as ms since the epoch or in RFC 3339.
func parseTimeFlag(name, s string) (int64, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want ms since the epoch or an RFC 3339 time", name, s)
	}
	return t.UnixMilli(), nil
}

func simulateToFile(feed *sim.Feed, path string) (sim.Summary, error) {
	f, err := os.Create(path)
	if err != nil {
		return sim.Summary{}, err
	}
	s, err := sim.WriteReplay(f, feed)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return s, fmt.Errorf("writing %s: %w", path, err)
	}
	return s, nil
}

// simulateToBroker publishes paced by the wall clock until the feed ends or
// SIGINT/SIGTERM; the summary says what was sent either way.
func simulateToBroker(feed *sim.Feed, url string, qos byte, stderr io.Writer) (sim.Summary, error) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	connectCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	c, err := mqtt.Connect(connectCtx, mqtt.Options{
		URL: url, ClientID: fmt.Sprintf("edged-simulate-%d", time.Now().UnixNano()), CleanSession: true,
		Logger: newLogger(logQuiet, stderr),
	})
	if err != nil {
		return sim.Summary{}, err
	}
	defer c.Close(time.Second)
	return sim.Publish(ctx, feed, c, qos), nil
}
