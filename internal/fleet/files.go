package fleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/edged/edged/configs"
)

// ReadFiles reads and validates device files as edged validate does, for a push:
// the entries are keyed by base name, and two files of one name or one device id
// are errors.
func ReadFiles(paths []string) ([]Entry, configs.Errors) {
	var errs configs.Errors
	var entries []Entry
	owners := map[string]*configs.Device{}
	names := map[string]string{}
	for _, path := range paths {
		name := filepath.Base(path)
		if err := configs.CheckFleetFileName(name); err != nil {
			errs = append(errs, configs.Error{File: path, Reason: err.Error()})
			continue
		}
		if first, dup := names[name]; dup {
			errs = append(errs, configs.Error{File: path, Reason: fmt.Sprintf("has the name of %s: both would be the same key", first)})
			continue
		}
		names[name] = path
		data, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, configs.Error{File: path, Reason: "cannot read the file: " + err.Error()})
			continue
		}
		dev, err := configs.ParseDevice(path, data)
		var es configs.Errors
		switch {
		case errors.As(err, &es):
			errs = append(errs, es...)
			continue
		case err != nil:
			errs = append(errs, configs.Error{File: path, Reason: err.Error()})
			continue
		}
		if first, dup := owners[dev.ID]; dup {
			errs = append(errs, configs.Error{File: path, Line: dev.Line, Field: "device",
				Reason: fmt.Sprintf("%q is already the id of %s:%d; device ids must be unique", dev.ID, first.Path, first.Line)})
			continue
		}
		owners[dev.ID] = dev
		entries = append(entries, Entry{Key: name, Data: string(data), dev: dev})
	}
	return entries, errs
}
