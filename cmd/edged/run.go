package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
)

// shutdownTimeout bounds a graceful stop: commit, publish, close.
const shutdownTimeout = 10 * time.Second

func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", stdout, stderr)
	path := fs.String("config", "", "daemon config file (YAML)")
	data := fs.String("data", "", "state directory (overrides data_dir)")
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
	return serve(cfg, *path, stderr)
}

// serve runs the daemon until SIGINT or SIGTERM. SIGHUP re-validates the config file:
// the daemon keeps running on its current config either way and says whether the file
// on disk is good to restart with.
func serve(cfg *configs.Daemon, path string, stderr io.Writer) error {
	log := newLogger(cfg.Log, stderr)
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	d, err := actors.Start(ctx, cfg, log)
	if err != nil && ctx.Err() != nil {
		// Stopped while still waiting for the broker: nothing was taken, nothing is lost.
		log.Info("stopped before edged was running", "reason", err)
		return nil
	}
	if err != nil {
		return err
	}
	if err := sdNotify("READY=1"); err != nil {
		log.Warn("cannot tell systemd that edged is ready", "err", err)
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			log.Info("stopping", "timeout", shutdownTimeout)
			_ = sdNotify("STOPPING=1")
			return d.Stop(shutdownTimeout)
		case <-hup:
			if path == "" {
				continue
			}
			if _, err := configs.Load(path); err != nil {
				log.Error("config on disk is invalid; keeping the running config", "file", path, "err", err)
			} else {
				log.Info("config on disk is valid; restart edged to apply it", "file", path)
			}
		}
	}
}
