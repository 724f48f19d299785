package actors

import (
	"fmt"

	"github.com/edged/edged/internal/explain"
	"github.com/edged/edged/persist"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// What a key of a window definition holds, for explain: from its window actor
// (explained, in the actor's own goroutine) or from its saved state.

// ExplainSaved turns a key's saved state into what explain reasons about. op, a
// fresh operator of the key's window definition (its assigner does not matter),
// decodes the windows; the gone sessions' tombs it keeps are no windows.
func ExplainSaved(op *windows.Operator, key string, ks *persist.KeyState) (*explain.KeyState, error) {
	out := &explain.KeyState{Watermark: ks.Watermark, Valve: ks.Valve}
	for _, saved := range ks.Windows {
		win, state, err := DecodeSavedWindow(saved)
		if err == nil {
			err = op.Restore(key, win, state)
		}
		if err != nil {
			return nil, fmt.Errorf("window %s key %q: %w", ks.Window, key, err)
		}
		if values, results, ok := op.Peek(key, win); ok {
			out.Windows = append(out.Windows, explain.OpenWindow{Window: win, Results: results, Values: values})
		}
	}
	return out, nil
}

// ExplainStreams is the streams' saved states as explain reads them.
func ExplainStreams(saved map[string]watermark.GeneratorState) map[string]explain.StreamState {
	out := make(map[string]explain.StreamState, len(saved))
	for name, g := range saved {
		out[name] = explain.StreamState{Watermark: g.Watermark, Idle: g.Idle, Seen: g.Seen, Max: g.Max, LastArrival: g.LastArrival}
	}
	return out
}

// explained is the window actor's own state, taken in its goroutine.
func (w *window) explained() *explain.KeyState {
	ks := &explain.KeyState{Live: true, Watermark: w.op.Watermark(), Valve: w.valve.State()}
	for _, win := range w.op.Windows(w.key) {
		if values, results, ok := w.op.Peek(w.key, win); ok {
			ks.Windows = append(ks.Windows, explain.OpenWindow{Window: win, Results: results, Values: values})
		}
	}
	return ks
}
