package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/sim"
	"github.com/edged/edged/mqtt"
)

func recordCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("record", stdout, stderr)
	path := fs.String("config", "", "daemon config file (YAML): its broker and stream topics are recorded")
	output := fs.String("output", "", "recording to write, JSON lines in the replay format (- for stdout)")
	duration := fs.Duration("duration", 0, "stop after this long (default: until Ctrl-C or SIGTERM)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" || *output == "" {
		return usageErrorf("--config and --output are required")
	}
	cfg, err := loadConfig(*path, stderr)
	if err != nil {
		return err
	}
	out, closeOut := stdout, func() error { return nil }
	if *output != "-" {
		f, err := os.Create(*output)
		if err != nil {
			return err
		}
		out, closeOut = f, f.Close
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if *duration > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, *duration)
		defer stop()
	}
	prog := newProgress(stderr, out, "record", "readings")
	n, err := record(ctx, cfg, out, stderr, nil, prog, *duration)
	prog.finish()
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	fmt.Fprintf(stderr, "recorded %d messages\n", n)
	return err
}

// recordFlushEvery bounds how much of a recording a crash of `edged record` loses.
const recordFlushEvery = time.Second

// record subscribes to every stream topic of cfg on its broker, with a clean
// session and no acknowledgement beyond the client's own, and writes each
// message that arrives as a replay line at its arrival time until ctx is done.
// ready (may be nil) is called once the subscriptions are in place. prog (may
// be nil) shows the readings so far, against duration if it is set.
func record(ctx context.Context, cfg *configs.Daemon, out io.Writer, stderr io.Writer, ready func(), prog *progress, duration time.Duration) (int, error) {
	url := cfg.Broker.URL
	if cfg.Broker.Embedded() {
		url = "tcp://" + cfg.Broker.Listen // the embedded broker of a running edged
	}
	tlsCfg, err := cfg.Broker.TLS.Config()
	if err != nil {
		return 0, err
	}
	var subs []mqtt.Subscription
	for _, d := range cfg.Devices {
		for _, s := range d.Streams {
			subs = append(subs, mqtt.Subscription{Filter: s.Topic, QoS: s.QoS})
		}
	}
	if len(subs) == 0 {
		return 0, errors.New("the config has no streams to record")
	}
	w := &recordWriter{out: bufio.NewWriterSize(out, 1<<16)}
	// A client id of its own: taking edged's would disconnect the daemon.
	c, err := mqtt.Connect(ctx, mqtt.Options{
		URL: url, ClientID: fmt.Sprintf("%s-record-%d", cfg.Broker.ClientID, time.Now().UnixNano()),
		Username: cfg.Broker.Username, Password: cfg.Broker.Password, TLS: tlsCfg, KeepAlive: cfg.Broker.KeepAlive,
		CleanSession: true, Subscriptions: subs, Handler: w.write,
		Logger: newLogger(logQuiet, prog.logs(stderr)),
	})
	if err != nil {
		return 0, err
	}
	if ready != nil {
		ready()
	}
	tick := time.NewTicker(recordFlushEvery)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
		}
		if err := w.flush(); err != nil {
			c.Close(0)
			return w.count(), fmt.Errorf("writing the recording: %w", err)
		}
		s := w.state()
		if duration > 0 {
			s.done, s.total = prog.elapsed().Milliseconds(), duration.Milliseconds()
		}
		prog.show(s)
	}
	c.Close(time.Second)
	return w.count(), w.flush()
}

// recordWriter appends arriving messages to the recording. Arrival times never
// go back, even if the wall clock does, because replay rejects that.
type recordWriter struct {
	mu   sync.Mutex
	out  *bufio.Writer
	last int64
	n    int
	line []byte
	err  error
}

func (w *recordWriter) write(m *mqtt.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = max(w.last, time.Now().UnixMilli())
	w.line = sim.AppendReplayLine(w.line[:0], w.last, m.Topic, m.Payload)
	if _, err := w.out.Write(w.line); err != nil && w.err == nil {
		w.err = err
	}
	w.n++
}

func (w *recordWriter) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return w.out.Flush()
}

// state is the readings so far and the arrival time of the last one.
func (w *recordWriter) state() progressState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return progressState{count: int64(w.n), at: w.last, hasAt: w.n > 0}
}

func (w *recordWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}
