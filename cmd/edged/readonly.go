package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/edged/edged/persist"
)

// openReadOnly opens the state of a stopped edged for a tool (verb says which), read-only,
// and turns the refusals an operator meets into what to do about them.
func openReadOnly(dir, verb string, log *slog.Logger) (*persist.Store, error) {
	store, err := persist.Open(persist.Options{Dir: dir, ReadOnly: true, Logger: log})
	switch {
	case errors.Is(err, persist.ErrLocked):
		return nil, fmt.Errorf("cannot %s %s: another edged holds it; stop it first (%w)", verb, dir, err)
	case errors.Is(err, persist.ErrDamaged):
		return nil, fmt.Errorf("%w\nRestore %s from a backup, or let `edged run --reset-state` move it aside", err, dir)
	}
	return store, err
}
