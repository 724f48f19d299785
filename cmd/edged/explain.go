package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
)

func explainCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("explain", stdout, stderr)
	data := fs.String("data", "", "state directory of a stopped edged (default: data_dir of --config); opened read-only")
	path := fs.String("config", "", "daemon config file (YAML): adds allowed lateness, bounds and idle timeouts to the explanation")
	device := fs.String("device", "", "the device, when several have a window of this name")
	window := fs.String("window", "", "window name (as in the device file)")
	key := fs.String("key", "", "key whose window to explain")
	at := fs.String("at", "", "explain the windows holding this event time (ms since the epoch or RFC 3339); default: every open window of the key")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *window == "" || *key == "" || (*data == "" && *path == "") {
		return usageErrorf("--window, --key and one of --data or --config are required")
	}
	in := explainInput{window: *window, key: *key}
	if *at != "" {
		ms, err := parseTimeFlag("--at", *at)
		if err != nil {
			return usageErrorf("%v", err)
		}
		in.at, in.hasAt = ms, true
	}
	var cfg *configs.Daemon
	if *path != "" {
		var err error
		if cfg, err = loadConfig(*path, stderr); err != nil {
			return err
		}
		if *data == "" {
			*data = cfg.DataDir
		}
	}
	store, err := openReadOnly(*data, "explain from", slog.New(slog.DiscardHandler), stdout)
	if err != nil {
		return err
	}
	defer store.Close()
	devices, err := store.Devices()
	if err != nil {
		return err
	}
	var found []string
	for _, d := range devices {
		if *device != "" && d != *device {
			continue
		}
		st, err := store.LoadDevice(d)
		if err != nil {
			return err
		}
		if def, ok := st.WindowDefs[*window]; ok {
			found = append(found, d)
			in.device, in.state = d, st
			if in.def, err = actors.ParseWindowDef(def); err != nil {
				return err
			}
		}
	}
	switch {
	case len(found) == 0:
		return fmt.Errorf("no window %q in the state in %s (edged inspect --data %s lists what is there)", *window, *data, *data)
	case len(found) > 1:
		return usageErrorf("devices %s all have a window %q: pick one with --device", strings.Join(found, ", "), *window)
	}
	if cfg != nil {
		in.config(cfg)
	}
	return writeExplanation(stdout, &in)
}

// config adds what only the device file knows: allowed lateness and the
// stream's watermark settings.
func (in *explainInput) config(cfg *configs.Daemon) {
	for _, d := range cfg.Devices {
		if d.ID != in.device {
			continue
		}
		for _, w := range d.Windows {
			if w.Name == in.window {
				in.lateness, in.hasLateness = w.AllowedLateness.Milliseconds(), true
				in.stream = d.Stream(w.Stream)
			}
		}
	}
}
