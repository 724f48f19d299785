package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/persist"
)

// childReplay replays the input through edged's actors with the durability
// asked for; "memory" keeps no data dir at all.
func childReplay(a *childArgs) (*measurement, error) {
	dur, err := persist.ParseDurability(a.durability)
	if err != nil {
		return nil, err
	}
	cfg, _, err := writeConfig(a.dir, a.durability, "tcp://127.0.0.1:1", "", 1, benchCommit, "")
	if err != nil {
		return nil, err
	}
	data := ""
	if dur != persist.Memory {
		data = filepath.Join(a.dir, "data")
	}
	in, err := os.Open(a.input)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var out countingWriter
	st, err := actors.Replay(actors.ReplayOptions{
		Config: cfg, Input: bufio.NewReaderSize(in, 1<<20), Output: &out, DataDir: data, Durability: dur, KeepOpen: a.keepOpen,
	})
	if err != nil {
		return nil, fmt.Errorf("replaying %s: %w", a.input, err)
	}
	return &measurement{Events: int64(st.Messages), Results: int64(st.Results)}, nil
}

// countingWriter discards replay output; results are counted by Replay.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}
