package main

import (
	"io"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/explain"
	"github.com/edged/edged/persist"
)

// explainInput is what edged explain knows about one window of one key.
type explainInput struct {
	device, window, key string
	def                 actors.WindowDef
	state               *persist.DeviceState
	at                  int64 // event time whose windows to explain, if hasAt
	hasAt               bool
	lateness            int64 // ms, if hasLateness (from the config)
	hasLateness         bool
	stream              *configs.Stream // the window's stream, if the config was given
}

// writeExplanation writes, in plain words, why each chosen window of the key has
// or has not fired; the reasoning is internal/explain's, which the daemon's
// /explain serves too.
func writeExplanation(w io.Writer, in *explainInput) error {
	x := explain.Input{Device: in.device, Window: in.window, Key: in.key, Def: explain.Def(in.def)}
	if in.hasAt {
		x.At = &in.at
	}
	if in.hasLateness {
		x.Lateness = &in.lateness
	}
	if in.stream != nil {
		c := in.stream.WatermarkConfig()
		x.Stream = &c
	}
	for i := range in.state.Keys {
		if ks := &in.state.Keys[i]; ks.Window == in.window && ks.Key == in.key {
			op, err := peekOperator(in.state.WindowDefs[in.window])
			if err != nil {
				return err
			}
			if x.State, err = actors.ExplainSaved(op, in.key, ks); err != nil {
				return err
			}
			x.Streams = actors.ExplainStreams(in.state.Streams)
		}
	}
	explain.Write(w, explain.Build(&x))
	return nil
}
