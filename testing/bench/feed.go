package main

import (
	"fmt"
	"os"
	"time"

	"github.com/edged/edged/internal/sim"
)

// benchStart pins the feed's event times, so every run replays the same file.
const benchStart int64 = 1_733_140_000_000

// generateFeed writes records readings of sensors sensors, rate readings/s
// each, with up to 500 ms of disorder and none late, in the replay format.
func generateFeed(path string, records, sensors int, rate float64) error {
	span := time.Duration(float64(records) / float64(sensors) / rate * float64(time.Second))
	feed, err := sim.NewFeed(sim.Config{
		Sensors: sensors, Rate: rate, Duration: span, Disorder: 500 * time.Millisecond, Seed: 1, Start: benchStart,
	})
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	s, err := sim.WriteReplay(f, feed)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if s.Total < records*99/100 {
		return fmt.Errorf("the feed has %d records, want about %d", s.Total, records)
	}
	return nil
}
