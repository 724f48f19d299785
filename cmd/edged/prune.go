package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/internal/fleet"
	"github.com/edged/edged/persist"
)

// pruneCmd deletes the state of devices that are no longer configured. A live
// reload keeps a removed device's state, so the device resumes if it comes back;
// this is how an operator says it will not.
func pruneCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("prune", stdout, stderr)
	path := fs.String("config", "", "daemon config file (YAML): the devices to keep")
	data := fs.String("data", "", "state directory (overrides data_dir)")
	dryRun := fs.Bool("dry-run", false, "only list what would be deleted")
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
	if cfg.Fleet.KV.Enabled() { // the fleet bucket's devices are configured too
		fleetDevs, err := fleet.DevicesKept(cfg)
		if err != nil {
			return err
		}
		cfg.Devices = append(cfg.Devices, fleetDevs...)
	}
	dur, err := persist.ParseDurability(cfg.Durability)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var store *persist.Store
	if *dryRun {
		store, err = openReadOnly(cfg.DataDir, "prune", log, stdout)
	} else {
		store, err = persist.Open(persist.Options{Dir: cfg.DataDir, Durability: dur, Logger: log})
		if errors.Is(err, persist.ErrLocked) {
			err = fmt.Errorf("cannot prune %s: another edged holds it; stop it first (%w)", cfg.DataDir, err)
		}
	}
	if err != nil {
		return err
	}
	defer store.Close()
	stored, err := store.Devices()
	if err != nil {
		return err
	}
	var keep []string
	for _, d := range cfg.Devices {
		keep = append(keep, d.ID)
	}
	pruned := 0
	for _, id := range stored {
		if slices.Contains(keep, id) {
			continue
		}
		pruned++
		queued := 0
		for _, q := range actors.DeviceQueues(id) {
			queued += store.Stats(q).Records
		}
		if *dryRun {
			fmt.Fprintf(stdout, "would delete device %s: its windows, watermarks and %d unsent outbox records\n", id, queued)
			continue
		}
		if err := store.DeleteDevice(id); err != nil {
			return err
		}
		for _, q := range actors.DeviceQueues(id) {
			if _, err := store.DropOldest(q, math.MaxInt); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "deleted device %s: its windows, watermarks and %d unsent outbox records\n", id, queued)
	}
	if pruned == 0 {
		fmt.Fprintf(stdout, "%s: every device with state is configured; nothing to prune\n", cfg.DataDir)
	}
	return nil
}
