package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/edged/edged/persist"
)

// openReadOnly opens the state of a stopped edged for a tool (verb says which), read-only,
// and turns the refusals an operator meets into what to do about them. State that edged
// did not close (killed, or a power cut) opens as the next start will recover it, and
// the tool says so first on out: what it shows may then differ from what the killed
// edged had published last.
func openReadOnly(dir, verb string, log *slog.Logger, out io.Writer) (*persist.Store, error) {
	store, err := persist.Open(persist.Options{Dir: dir, ReadOnly: true, Logger: log})
	if err == nil && store.NotClosedCleanly() {
		fmt.Fprintf(out, "%s was not closed cleanly (edged was killed or lost power): shown as the next start will recover it, changing nothing in it\n", dir)
	}
	switch {
	case errors.Is(err, persist.ErrLocked):
		return nil, fmt.Errorf("cannot %s %s: another edged holds it; stop it first (%w)", verb, dir, err)
	case errors.Is(err, persist.ErrDamaged):
		return nil, fmt.Errorf("%w\nRestore %s from a backup, or let `edged run --reset-state` move it aside", err, dir)
	}
	return store, err
}
