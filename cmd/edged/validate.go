package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/edged/edged/configs"
)

func validateCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("validate", stdout, stderr)
	path := fs.String("config", "", "daemon config file (YAML)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := loadConfig(*path, stderr)
	if err != nil {
		return err
	}
	streams, wins := 0, 0
	for _, d := range cfg.Devices {
		streams += len(d.Streams)
		wins += len(d.Windows)
	}
	fmt.Fprintf(stdout, "%s: ok (%d devices, %d streams, %d windows)\n", *path, len(cfg.Devices), streams, wins)
	return nil
}

// loadConfig loads and validates the daemon config of --config; config errors are
// printed one per line as file:line: field: reason, and the command exits 1.
func loadConfig(path string, stderr io.Writer) (*configs.Daemon, error) {
	if path == "" {
		return nil, usageErrorf("--config is required")
	}
	cfg, err := configs.Load(path)
	var errs configs.Errors
	if errors.As(err, &errs) {
		for _, e := range errs {
			fmt.Fprintln(stderr, e.Error())
		}
		fmt.Fprintf(stderr, "%d error(s)\n", len(errs))
		return nil, exitError{1}
	}
	return cfg, err
}
