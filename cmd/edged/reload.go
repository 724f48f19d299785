package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/fleet"
)

const (
	// reloadDebounce is the quiet time after the last change in devices_dir
	// before the config is read: an editor's save or a deploy tool's copy of several
	// files is many events, and a half-written set must not be applied.
	reloadDebounce = 300 * time.Millisecond
	// reloadTimeout bounds a reload's wait for the changed devices' messages in
	// flight to be committed; past it the reload is refused and the running config
	// stays.
	reloadTimeout = 30 * time.Second
)

// reloader reads the config from disk on SIGHUP and after a change in devices_dir
// and hands it to the daemon, which applies it or says why not. It is a thin
// caller of Daemon.Reload: other sources of config call Daemon.Apply.
type reloader struct {
	d            *actors.Daemon
	path         string
	dataOverride string // --data, applied to every reloaded config as at start
	// With fleet.kv, the fleet's device files join those read from disk, and
	// local is the set of those last applied.
	fleet *fleet.Sync
	local []*configs.Device
}

func (r *reloader) reload(ctx context.Context) {
	cfg, err := configs.Load(r.path)
	if err != nil {
		r.d.Refuse(err)
		return
	}
	if r.dataOverride != "" {
		cfg.DataDir = r.dataOverride
	}
	local := cfg.Devices
	if r.fleet != nil {
		cfg.Devices = slices.Concat(local, r.fleet.Devices())
	}
	ctx, cancel := context.WithTimeout(ctx, reloadTimeout)
	defer cancel()
	if _, err := r.d.Reload(ctx, cfg); err == nil { // the daemon logs and counts the outcome
		r.local = local
	}
}

// watchDevices reports, debounced, changes to the device files (*.yaml, *.yml) in
// dir until ctx ends. Without a watcher (the OS refuses one) it logs why and
// reports nothing: SIGHUP still reloads.
func watchDevices(ctx context.Context, dir string, log *slog.Logger) <-chan struct{} {
	changed := make(chan struct{}, 1)
	w, err := fsnotify.NewWatcher()
	if err == nil {
		err = w.Add(dir)
		if err != nil {
			_ = w.Close()
		}
	}
	if err != nil {
		log.Warn("not watching devices_dir for changes; send SIGHUP to reload", "dir", dir, "err", err)
		return changed
	}
	go func() {
		defer w.Close()
		quiet := time.NewTimer(time.Hour)
		quiet.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if isDeviceFile(ev.Name) && !ev.Has(fsnotify.Chmod) {
					quiet.Reset(reloadDebounce)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				log.Warn("watching devices_dir", "dir", dir, "err", err)
			case <-quiet.C:
				select {
				case changed <- struct{}{}:
				default: // one reload already pending reads the latest files
				}
			}
		}
	}()
	return changed
}

// isDeviceFile says whether a change to name is a change to the device files:
// a *.yaml or *.yml file, not an editor's hidden temporary, or the "..data" link a
// Kubernetes ConfigMap volume swaps to update all its files at once.
func isDeviceFile(name string) bool {
	base := filepath.Base(name)
	if base == "..data" {
		return true
	}
	ext := filepath.Ext(name)
	return (ext == ".yaml" || ext == ".yml") && !strings.HasPrefix(base, ".")
}
