package main

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/internal/explain"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

func inspectCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("inspect", stdout, stderr)
	dir := fs.String("data", "", "state directory (data_dir of the daemon)")
	device := fs.String("device", "", "show only this device")
	key := fs.String("key", "", "show this key's windows with their current values")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return usageErrorf("--data is required")
	}
	// Read-only: inspect must never change the state it shows, nor create any.
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := openReadOnly(*dir, "inspect", log, stdout)
	if err != nil {
		return err
	}
	defer store.Close()
	devices, err := store.Devices()
	if err != nil {
		return err
	}
	if *device != "" {
		devices = []string{*device}
	}
	if len(devices) == 0 {
		fmt.Fprintf(stdout, "%s: no device state\n", *dir)
	}
	for _, d := range devices {
		st, err := store.LoadDevice(d)
		if err != nil {
			return err
		}
		printDevice(stdout, store, d, st)
		if *key != "" {
			printKey(stdout, d, st, *key)
		}
	}
	return nil
}

func printDevice(w io.Writer, store *persist.Store, device string, st *persist.DeviceState) {
	fmt.Fprintf(w, "device %s\n", device)
	fmt.Fprintf(w, "  streams: %d\n", len(st.Streams))
	for _, name := range sortedNames(st.Streams) {
		g := st.Streams[name]
		fmt.Fprintf(w, "    %s  watermark %s  max event time %s  idle %v\n", name, showTime(g.Watermark), showSeen(g), g.Idle)
	}
	type tally struct{ keys, open int }
	byWindow := map[string]*tally{}
	for _, ks := range st.Keys {
		t := byWindow[ks.Window]
		if t == nil {
			t = &tally{}
			byWindow[ks.Window] = t
		}
		t.keys++
		for _, saved := range ks.Windows {
			// A gone session's tomb is no open window; an entry that does
			// not decode counts as one, as it would have before tombs.
			if _, state, err := actors.DecodeSavedWindow(saved); err != nil || !windows.IsTomb(state) {
				t.open++
			}
		}
	}
	for name := range st.WindowDefs {
		if byWindow[name] == nil {
			byWindow[name] = &tally{}
		}
	}
	open := 0
	for _, t := range byWindow {
		open += t.open
	}
	fmt.Fprintf(w, "  windows: %d definitions, %d open windows\n", len(byWindow), open)
	for _, name := range sortedNames(byWindow) {
		t := byWindow[name]
		fmt.Fprintf(w, "    %s  %s  keys %d  open windows %d\n", name, describeDef(st.WindowDefs[name]), t.keys, t.open)
	}
	for _, q := range []string{"res/" + device, "up/" + device} {
		s := store.Stats(q)
		fmt.Fprintf(w, "  outbox %s: %d records, %d bytes\n", q, s.Records, s.Bytes)
	}
	if len(st.Corrupt) > 0 {
		fmt.Fprintf(w, "  unreadable values: %d\n", len(st.Corrupt))
		for _, e := range st.Corrupt {
			fmt.Fprintf(w, "    %v\n", e)
		}
	}
}

// printKey shows one key's valve and windows in every window definition, with each
// window's accumulators decoded into the values its next result would carry.
func printKey(w io.Writer, device string, st *persist.DeviceState, key string) {
	found := false
	for _, ks := range st.Keys {
		if ks.Key != key {
			continue
		}
		found = true
		fmt.Fprintf(w, "  key %q in window %s\n", key, ks.Window)
		for _, in := range ks.Valve {
			fmt.Fprintf(w, "    input %s  watermark %s  idle %v\n", in.Input, showTime(in.Watermark), in.Idle)
		}
		op, err := peekOperator(st.WindowDefs[ks.Window])
		for _, saved := range ks.Windows {
			win, state, werr := actors.DecodeSavedWindow(saved)
			if werr == nil && err == nil {
				werr = op.Restore(key, win, state)
			}
			if werr == nil {
				werr = err
			}
			if werr != nil {
				fmt.Fprintf(w, "    window start %d: unreadable: %v\n", saved.Start, werr)
				continue
			}
			if next, ok := op.Tomb(key, win); ok {
				fmt.Fprintf(w, "    session [%d, %d) gone  a late reading may still revive its start, whose next result is revision %d\n", win.Start, win.End, next)
				continue
			}
			values, rev, _ := op.Peek(key, win)
			fmt.Fprintf(w, "    window [%d, %d)  results so far %d  %s\n", win.Start, win.End, rev, explain.ShowValues(values))
		}
	}
	if !found {
		fmt.Fprintf(w, "  key %q: no state in device %s\n", key, device)
	}
}

// peekOperator builds an operator that can restore the saved windows of a window
// definition; the assigner is irrelevant to restoring and peeking.
func peekOperator(def []byte) (*windows.Operator, error) {
	d, err := actors.ParseWindowDef(def)
	if err != nil {
		return nil, err
	}
	aggs, err := windows.ParseAggregates(d.Aggregates)
	if err != nil {
		return nil, fmt.Errorf("reading the saved window definition %s: %w", def, err)
	}
	return windows.NewOperator(windows.OperatorConfig{Assigner: windows.Tumbling(1, 0), Aggregates: aggs}), nil
}

func describeDef(def []byte) string {
	d, err := actors.ParseWindowDef(def)
	if err != nil {
		return "(definition not saved)"
	}
	shape := fmt.Sprintf("%s size %dms", d.Type, d.Size)
	switch d.Type {
	case "sliding":
		shape += fmt.Sprintf(" slide %dms", d.Slide)
	case "session":
		shape = fmt.Sprintf("session gap %dms", d.Gap)
	}
	return fmt.Sprintf("(%s, %s)", shape, strings.Join(d.Aggregates, ", "))
}

func showTime(ms int64) string {
	if ms == watermark.Min {
		return "none"
	}
	return fmt.Sprint(ms)
}

func showSeen(g watermark.GeneratorState) string {
	if !g.Seen {
		return "none"
	}
	return fmt.Sprint(g.Max)
}

func sortedNames[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
