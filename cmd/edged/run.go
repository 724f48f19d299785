package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/fleet"
	"github.com/edged/edged/natsjs"
	"github.com/edged/edged/persist"
)

// shutdownTimeout bounds a graceful stop: commit, publish, close.
const shutdownTimeout = 10 * time.Second

func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", stdout, stderr)
	path := fs.String("config", "", "daemon config file (YAML)")
	data := fs.String("data", "", "state directory (overrides data_dir)")
	reset := fs.Bool("reset-state", false, "if the state in data_dir is refused as damaged, move it aside into data_dir/"+
		persist.DiscardPrefix+"<time> and start empty")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := loadConfig(*path, stderr)
	if err != nil {
		return err
	}
	if *data != "" {
		cfg.DataDir = *data
	}
	return serve(cfg, *path, *data, *reset, stderr)
}

// serve runs the daemon until SIGINT or SIGTERM. SIGHUP and changes to the device
// files reload the config: a valid one is applied live, an invalid one or one that
// needs a restart is refused and the daemon keeps its current config.
func serve(cfg *configs.Daemon, path, dataOverride string, reset bool, stderr io.Writer) error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	return serveUntil(ctx, cfg, path, dataOverride, reset, stderr)
}

// serveUntil is serve until ctx is done.
func serveUntil(ctx context.Context, cfg *configs.Daemon, path, dataOverride string, reset bool, stderr io.Writer) error {
	log := newLogger(cfg.Log, stderr)
	if reset {
		if err := resetState(cfg, log); err != nil {
			return err
		}
	}
	fleetSync, local := fleet.Prepare(cfg, log)
	var opts []actors.StartOption
	if fleetSync != nil {
		// The fleet block is on /status from the first answer, before the sync connects.
		opts = append(opts, actors.WithFleet(fleetSync.Started()))
	}
	d, err := actors.Start(ctx, cfg, log, opts...)
	if err != nil && ctx.Err() != nil {
		// Stopped while still waiting for the broker: nothing was taken, nothing is lost.
		log.Info("stopped before edged was running", "reason", err)
		return nil
	}
	if errors.Is(err, persist.ErrDamaged) {
		return fmt.Errorf("%w\nTo recover, restore %s from a backup, or run edged once with --reset-state: "+
			"it moves the damaged state into %s and starts empty, without the windows, watermarks and outboxes it held",
			err, cfg.DataDir, filepath.Join(cfg.DataDir, persist.DiscardPrefix+"<time>"))
	}
	if err != nil {
		return err
	}
	go d.GovernProcs(ctx)
	// Ready once every device has restored its state: until then its messages wait,
	// and a unit ordered after edged must not start seconds too early.
	restored := d.Restored()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	var changed <-chan struct{}
	kick := make(chan struct{}, 1)
	rl := &reloader{d: d, path: path, dataOverride: dataOverride, fleet: fleetSync, local: local}
	var fleetChanges <-chan []natsjs.Entry
	if fleetSync != nil {
		if fleetChanges, err = fleetSync.Start(ctx, d, actors.Build().Version); err != nil {
			_ = d.Stop(shutdownTimeout)
			return err
		}
		defer fleetSync.Close()
	}
	if path != "" {
		changed = watchDevices(ctx, cfg.DevicesDir, log)
		// Reloads, and changes from the fleet bucket, run beside this loop, so
		// SIGTERM stops edged even while one waits for a device's commits; one
		// pending request covers many. They run one at a time, so the local and
		// the fleet device files are combined in one place.
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-kick:
					rl.reload(ctx)
				case batch := <-fleetChanges:
					actx, cancel := context.WithTimeout(ctx, reloadTimeout)
					fleetSync.Apply(actx, batch, rl.local)
					cancel()
				}
			}
		}()
	}
	reload := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	for {
		select {
		case <-restored:
			restored = nil
			if err := sdNotify("READY=1"); err != nil {
				log.Warn("cannot tell systemd that edged is ready", "err", err)
			}
		case <-ctx.Done():
			log.Info("stopping", "timeout", shutdownTimeout)
			_ = sdNotify("STOPPING=1")
			return d.Stop(shutdownTimeout)
		case <-hup:
			reload()
		case <-changed:
			reload()
		}
	}
}

// resetState moves the state in data_dir aside when Open refuses it as damaged, so
// edged starts empty. Sound state is kept: a --reset-state left in a service file
// must not wipe a healthy gateway at its next restart.
func resetState(cfg *configs.Daemon, log *slog.Logger) error {
	dur, err := persist.ParseDurability(cfg.Durability)
	if err != nil || dur == persist.Memory {
		return err
	}
	store, err := persist.Open(persist.Options{Dir: cfg.DataDir, Durability: dur, Logger: log})
	if err == nil {
		log.Info("--reset-state: the state is sound; keeping it", "data_dir", cfg.DataDir)
		return store.Close()
	}
	if !errors.Is(err, persist.ErrDamaged) {
		return err
	}
	to, derr := persist.Discard(cfg.DataDir, time.Now())
	if derr != nil {
		return fmt.Errorf("%w; moving it aside failed: %w", err, derr)
	}
	log.Warn("--reset-state: moved the damaged state aside; starting empty", "data_dir", cfg.DataDir, "moved_to", to, "reason", err)
	return nil
}
