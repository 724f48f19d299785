package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fastjson"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/sim"
	"github.com/edged/edged/mqtt"
)

func demoCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", stdout, stderr)
	sensors := fs.Int("sensors", 20, "simulated sensors")
	rate := fs.Float64("rate", 2, "readings per second of each sensor")
	silent := fs.Int("silent", 2, "sensors (the last ones) that fall silent after --silent-after")
	silentAfter := fs.Duration("silent-after", 20*time.Second, "when the silent sensors stop")
	seed := fs.Uint64("seed", 1, "simulator seed")
	statusEvery := fs.Duration("status-every", 5*time.Second, "interval of the status line")
	listen := fs.String("listen", "", "embedded broker address (default: the demo config's, or a free port if it is taken)")
	httpListen := fs.String("http", "", "metrics address (default: the demo config's, or a free port if it is taken)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "edged-demo-")
	if err != nil {
		return fmt.Errorf("creating the demo's state directory: %w", err)
	}
	defer os.RemoveAll(dir)
	cfg, err := configs.Embedded(dir)
	if err != nil {
		return fmt.Errorf("loading the embedded demo config: %w", err)
	}
	if cfg.Broker.Listen, err = demoAddr(*listen, cfg.Broker.Listen, "broker", stderr); err != nil {
		return err
	}
	if cfg.HTTP.Listen, err = demoAddr(*httpListen, cfg.HTTP.Listen, "metrics", stderr); err != nil {
		return err
	}
	feed, err := sim.NewFeed(sim.Config{
		Sensors: *sensors, Rate: *rate, Disorder: 300 * time.Millisecond,
		LateFraction: 0.02, LateBy: 3 * time.Second, Silent: *silent, SilentAfter: *silentAfter,
		Seed: *seed, Start: time.Now().UnixMilli(),
	})
	if err != nil {
		return err
	}

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	log := newLogger(logQuiet, stderr)
	d, err := actors.Start(ctx, cfg, log)
	if err != nil {
		return err
	}
	out := &demoPrinter{w: stdout}
	url := "tcp://" + cfg.Broker.Listen
	fmt.Fprintf(stderr, "edged demo: broker %s, status page http://%s/, metrics http://%s/metrics, state in %s\n", url, d.HTTPAddr(), d.HTTPAddr(), dir)
	fmt.Fprintf(stderr, "edged demo: %d sensors at %v readings/s each (up to 300ms out of order, 2%% sent 3s late, %d silent after %s); Ctrl-C stops\n",
		*sensors, *rate, *silent, *silentAfter)
	stop := func(err error) error {
		serr := d.Stop(shutdownTimeout)
		if err == nil {
			err = serr
		}
		return err
	}
	results, err := mqtt.Connect(ctx, mqtt.Options{
		URL: url, ClientID: "edged-demo-results", CleanSession: true,
		Subscriptions: demoResultFilters(cfg), Handler: func(m *mqtt.Message) { out.result(m.Payload) },
		Logger: log,
	})
	if err != nil {
		return stop(err)
	}
	defer results.Close(time.Second)
	pub, err := mqtt.Connect(ctx, mqtt.Options{URL: url, ClientID: "edged-demo-sensors", CleanSession: true, Logger: log})
	if err != nil {
		return stop(err)
	}
	var simulating sync.WaitGroup
	simulating.Add(1)
	go func() {
		defer simulating.Done()
		sim.Publish(ctx, feed, pub, 1)
	}()

	status := newDemoStatus(d.Metrics(), time.Now())
	tick := time.NewTicker(*statusEvery)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-ctx.Done():
			running = false
		case now := <-tick.C:
			out.line(status.line(now))
		}
	}
	fmt.Fprintln(stderr, "edged demo: stopping")
	simulating.Wait()
	// The clients go first: the daemon's embedded broker goes down with it.
	pub.Close(time.Second)
	results.Close(time.Second)
	return stop(nil)
}

// demoAddr is flag if set, else def if it is free, else a free loopback port:
// a second demo, or anything else on the default ports, must not stop the demo.
func demoAddr(flag, def, what string, stderr io.Writer) (string, error) {
	if flag != "" {
		return flag, nil
	}
	ln, err := net.Listen("tcp", def)
	if err == nil {
		ln.Close()
		return def, nil
	}
	ln, err2 := net.Listen("tcp", "127.0.0.1:0")
	if err2 != nil {
		return "", fmt.Errorf("the %s address %s is taken (%v) and no free port was found: %w", what, def, err, err2)
	}
	addr := ln.Addr().String()
	ln.Close()
	fmt.Fprintf(stderr, "edged demo: %s address %s is taken; using %s\n", what, def, addr)
	return addr, nil
}

// demoResultFilters subscribes to every window's output topic, placeholders as
// wildcards.
func demoResultFilters(cfg *configs.Daemon) []mqtt.Subscription {
	var subs []mqtt.Subscription
	seen := map[string]bool{}
	for _, d := range cfg.Devices {
		for _, w := range d.Windows {
			if w.Output.Topic == "" {
				continue
			}
			parts := strings.Split(w.Output.Topic, "/")
			for i, p := range parts {
				if strings.Contains(p, "{") {
					parts[i] = "+"
				}
			}
			f := strings.Join(parts, "/")
			if !seen[f] {
				seen[f] = true
				subs = append(subs, mqtt.Subscription{Filter: f, QoS: 1})
			}
		}
	}
	return subs
}

// demoPrinter writes whole lines from the result handler and the status loop.
type demoPrinter struct {
	mu sync.Mutex
	w  io.Writer
	p  fastjson.Parser
}

func (p *demoPrinter) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w, s)
}

func (p *demoPrinter) result(payload []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, err := p.p.ParseBytes(payload)
	if err != nil {
		fmt.Fprintf(p.w, "unreadable result %q: %v\n", payload, err)
		return
	}
	fmt.Fprintln(p.w, formatResult(v))
}

// formatResult renders a result record as one line:
// result demo/per-5s s-3 [12:00:05.000, 12:00:10.000) count=10 avg_temp=21.43 ... on-time
func formatResult(v *fastjson.Value) string {
	var b strings.Builder
	fmt.Fprintf(&b, "result  %s/%s  %-6s [%s, %s) ", v.GetStringBytes("device"), v.GetStringBytes("window"),
		v.GetStringBytes("key"), demoTime(v.GetInt64("start")), demoTime(v.GetInt64("end")))
	if vals := v.GetObject("values"); vals != nil {
		vals.Visit(func(k []byte, x *fastjson.Value) {
			b.WriteByte(' ')
			b.Write(k)
			b.WriteByte('=')
			f, err := x.Float64()
			if err != nil {
				b.WriteByte('-') // null: no value in the window
				return
			}
			b.WriteString(demoNumber(f))
		})
	}
	if rev := v.GetInt("revision"); rev > 0 {
		fmt.Fprintf(&b, "  late rev %d", rev)
	} else {
		b.WriteString("  on-time")
	}
	return b.String()
}

func demoTime(ms int64) string { return time.UnixMilli(ms).Format("15:04:05.000") }

func demoNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// demoStatus turns the daemon's metrics into the periodic status line.
type demoStatus struct {
	m       *actors.Metrics
	last    time.Time
	records float64
}

func newDemoStatus(m *actors.Metrics, now time.Time) *demoStatus { return &demoStatus{m: m, last: now} }

func (s *demoStatus) line(now time.Time) string {
	fams, err := s.m.Registry.Gather()
	if err != nil {
		return "status  unavailable: " + err.Error()
	}
	var records, late, firings, updates float64
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			switch f.GetName() {
			case "edged_records_in_total":
				records += m.GetCounter().GetValue()
			case "edged_late_total":
				late += m.GetCounter().GetValue()
			case "edged_window_firings_total":
				firings += m.GetCounter().GetValue()
			case "edged_window_late_updates_total":
				updates += m.GetCounter().GetValue()
			}
		}
	}
	topics, idle, maxLag := s.m.Streams.Summary()
	rate := (records - s.records) / now.Sub(s.last).Seconds()
	s.records, s.last = records, now
	return fmt.Sprintf("status  %.0f records (%.1f/s)  sensors %d active, %d idle  watermark lag max %.0f ms  results %.0f on-time, %.0f late updates  late records %.0f",
		records, rate, topics-idle, idle, maxLag*1000, firings, updates, late)
}
