package main

import (
	"fmt"
	"io"
	"os"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/actors"
)

func replayCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("replay", stdout, stderr)
	path := fs.String("config", "", "daemon config file (YAML)")
	input := fs.String("input", "", "recorded input, JSON lines (- for stdin)")
	output := fs.String("output", "", "output file (default stdout)")
	wms := fs.Bool("watermarks", false, "also write every watermark change")
	data := fs.String("data", "", "state directory to replay into (default: in memory)")
	keepOpen := fs.Bool("keep-open", false, "leave windows open at the end of the input (no final +inf watermark), to continue with --data later")
	stats := fs.Bool("stats", false, "print counts to stderr at the end")
	metricsOut := fs.String("metrics", "", "at the end, write the Prometheus series that `run` would expose at /metrics to this file (text format)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" || *input == "" {
		return usageErrorf("--config and --input are required")
	}
	cfg, err := loadConfig(*path, stderr)
	if err != nil {
		return err
	}
	in, size := io.Reader(os.Stdin), int64(0)
	if *input != "-" {
		f, err := os.Open(*input)
		if err != nil {
			return err
		}
		defer f.Close()
		in, size = f, fileSize(f)
	}
	out := stdout
	if *output != "" {
		f, err := os.Create(*output)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	prog := newProgress(stderr, out, "replay", "lines")
	metrics := actors.MetricsFor(cfg.Metrics)
	st, err := actors.Replay(actors.ReplayOptions{
		Config: cfg, Input: prog.reader(in, size), Output: out, Watermarks: *wms, DataDir: *data, KeepOpen: *keepOpen,
		Metrics: metrics, Log: newLogger(cfg.Log, prog.logs(stderr)),
	})
	prog.finish()
	if *stats {
		fmt.Fprintf(stderr, "lines %d, messages %d, watermarks %d, results %d, late %d\n",
			st.Lines, st.Messages, st.Watermarks, st.Results, st.Late)
	}
	if err == nil && *metricsOut != "" {
		if err := prometheus.WriteToTextfile(*metricsOut, metrics.Registry); err != nil {
			return fmt.Errorf("writing the metrics to %s: %w", *metricsOut, err)
		}
	}
	return err
}
