package natsjs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// StreamConfig is what EnsureStream asks of a stream.
type StreamConfig struct {
	Name       string
	Subject    string // the subjects edged publishes to, e.g. "edged.gw1.>"
	Memory     bool   // memory storage instead of file storage
	Duplicates time.Duration
}

// EnsureStream creates the stream if it does not exist; if it does, it adds the
// subject unless one of its subjects covers it already, and raises its duplicate
// window to c.Duplicates. Other settings of an existing stream are left alone.
func (p *Publisher) EnsureStream(ctx context.Context, c StreamConfig) error {
	s, err := p.js.Stream(ctx, c.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		storage := jetstream.FileStorage
		if c.Memory {
			storage = jetstream.MemoryStorage
		}
		_, err = p.js.CreateStream(ctx, jetstream.StreamConfig{
			Name: c.Name, Subjects: []string{c.Subject}, Storage: storage, Duplicates: c.Duplicates,
		})
		if err != nil {
			return fmt.Errorf("creating JetStream stream %s for %s: %w", c.Name, c.Subject, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("looking up JetStream stream %s: %w", c.Name, err)
	}
	cfg := s.CachedInfo().Config
	changed := false
	if !slices.ContainsFunc(cfg.Subjects, func(f string) bool { return Covers(f, c.Subject) }) {
		cfg.Subjects = append(cfg.Subjects, c.Subject)
		changed = true
	}
	if cfg.Duplicates < c.Duplicates {
		cfg.Duplicates = c.Duplicates
		changed = true
	}
	if !changed {
		return nil
	}
	if _, err := p.js.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("adding %s to JetStream stream %s: %w", c.Subject, c.Name, err)
	}
	return nil
}

// StreamFor names the stream that takes in subject and its duplicate window, or
// says that none does.
func (p *Publisher) StreamFor(ctx context.Context, subject string) (string, time.Duration, error) {
	name, err := p.js.StreamNameBySubject(ctx, subject)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return "", 0, fmt.Errorf("no JetStream stream takes in subject %s", subject)
	}
	if err != nil {
		return "", 0, fmt.Errorf("looking up the JetStream stream of %s: %w", subject, err)
	}
	s, err := p.js.Stream(ctx, name)
	if err != nil {
		return "", 0, fmt.Errorf("looking up JetStream stream %s: %w", name, err)
	}
	return name, s.CachedInfo().Config.Duplicates, nil
}
