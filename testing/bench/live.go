package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/sim"
)

// childDaemon is `edged run` on the benchmark config: it prints its metrics
// address once it takes messages and stops cleanly on SIGTERM.
func childDaemon(a *childArgs) error {
	cfg, _, err := writeConfig(a.dir, "process", a.input, "127.0.0.1:0", a.qos)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer cancel()
	d, err := actors.Start(ctx, cfg, discardLogger())
	if err != nil {
		return err
	}
	fmt.Printf("ready %s\n", d.HTTPAddr())
	<-ctx.Done()
	return d.Stop(30 * time.Second)
}

// trial is one live run at a fixed publish rate.
type trial struct {
	rate      float64 // msg/s asked for
	sent      int
	received  int64
	dropped   int64 // QoS 0 messages edged shed at intake
	failed    int   // publishes the broker refused or never confirmed
	published time.Duration
	drained   time.Duration // from the end of publishing to the last record counted
	cpu       float64       // daemon's user+system seconds
	maxRSS    float64       // daemon's peak RSS, MiB
	ok        bool
	why       string
}

func (t *trial) String() string {
	s := fmt.Sprintf("%.0f msg/s: sent %d, edged counted %d, shed %d, failed %d, publishing took %s, drained in %s",
		t.rate, t.sent, t.received, t.dropped, t.failed, t.published.Round(time.Millisecond), t.drained.Round(time.Millisecond))
	if !t.ok {
		s += " -> not sustained: " + t.why
	}
	return s
}

// liveSearch finds, for QoS 0 and 1, the highest rate sustained: every message
// counted by edged, none shed, and the backlog gone within drainLimit.
func liveSearch(dir string, o *options) ([]row, error) {
	mq, err := startMosquitto(mustTemp(dir, "mosquitto-"))
	if err != nil {
		return nil, err
	}
	defer mq.stop()
	var rows []row
	for _, qos := range []int{0, 1} {
		best, err := searchRate(dir, mq.url, qos, o)
		if err != nil {
			return nil, err
		}
		r := row{name: fmt.Sprintf("edged run, Mosquitto QoS %d, highest lossless rate", qos), live: true}
		if best != nil {
			// The rate is the one asked for: the feed spreads sent messages
			// over the trial (plus the disorder tail).
			r.m = &measurement{Events: int64(best.sent), Seconds: float64(best.sent) / best.rate, CPU: best.cpu, MaxRSS: best.maxRSS}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

const drainLimit = 2 * time.Second

func searchRate(dir, url string, qos int, o *options) (*trial, error) {
	deadline := time.Now().Add(o.liveBudget)
	var best *trial
	lo, hi := 0.0, 0.0 // highest sustained, lowest not sustained
	rate := 4000.0
	for i := 0; i < 10 && time.Now().Before(deadline); i++ {
		t, err := runTrial(dir, url, qos, rate, o)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "live QoS %d: %s\n", qos, t)
		if t.ok {
			lo, best = rate, t
		} else {
			hi = rate
		}
		switch {
		case hi == 0:
			rate *= 2
		case lo == 0:
			rate /= 2
		case hi/lo < 1.15:
			return best, nil
		default:
			rate = (lo + hi) / 2
		}
		if rate < 250 {
			break
		}
	}
	return best, nil
}

func runTrial(dir, url string, qos int, rate float64, o *options) (*trial, error) {
	t := &trial{rate: rate}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	sub := mustTemp(dir, "daemon-")
	defer os.RemoveAll(sub)
	cmd := exec.Command(self, "-child", "daemon", "-qos", strconv.Itoa(qos), "-input", url, "-dir", sub)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		addr <- strings.TrimSpace(strings.TrimPrefix(line, "ready "))
		io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	var metricsURL string
	select {
	case a := <-addr:
		if a == "" {
			return nil, fmt.Errorf("the daemon child did not start: %v", <-exited)
		}
		metricsURL = "http://" + a + "/metrics"
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		return nil, errors.New("the daemon child did not start within 30s")
	}

	sensors := o.sensors
	feed, err := sim.NewFeed(sim.Config{
		Sensors: sensors, Rate: rate / float64(sensors), Duration: o.liveSeconds,
		Disorder: 500 * time.Millisecond, Seed: 2, Start: time.Now().UnixMilli(),
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*o.liveSeconds+10*time.Second)
	defer cancel()
	pub, err := mqtt.Connect(ctx, mqtt.Options{
		URL: url, ClientID: fmt.Sprintf("bench-pub-%d", time.Now().UnixNano()), CleanSession: true, Logger: discardLogger(),
	})
	if err != nil {
		return nil, err
	}
	began := time.Now()
	s := sim.Publish(ctx, feed, pub, byte(qos))
	t.published = time.Since(began)
	pub.Close(time.Second)
	t.sent, t.failed = s.Total, s.Failed

	// Wait until edged counted everything, or stopped making progress.
	end := time.Now()
	last, lastChange := int64(-1), time.Now()
	for time.Since(end) < 15*time.Second {
		in, shed, err := scrape(metricsURL)
		if err != nil {
			return nil, err
		}
		t.received, t.dropped = in, shed
		if in != last {
			last, lastChange = in, time.Now()
			t.drained = time.Since(end)
		}
		if in+shed >= int64(t.sent) || time.Since(lastChange) > 2*drainLimit {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling the daemon's counters
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			return nil, fmt.Errorf("daemon child: %w", err)
		}
	case <-time.After(40 * time.Second):
		cmd.Process.Kill()
		return nil, errors.New("the daemon child did not stop within 40s")
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		t.cpu = cpuSeconds(*ru)
		t.maxRSS = float64(ru.Maxrss) / 1024
	}
	switch {
	case t.failed > 0:
		t.why = fmt.Sprintf("%d publishes failed", t.failed)
	case t.received < int64(t.sent):
		t.why = fmt.Sprintf("%d messages lost", int64(t.sent)-t.received)
	case t.drained > drainLimit:
		t.why = fmt.Sprintf("backlog took %s to drain", t.drained.Round(time.Millisecond))
	case t.published > o.liveSeconds+time.Second: // the feed's last messages are due at most 500 ms after it
		t.why = "the publisher could not keep the pace"
	default:
		t.ok = true
	}
	return t, nil
}

// scrape sums edged's records-in and overload counters from /metrics.
func scrape(url string) (in, shed int64, err error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var dst *int64
		switch {
		case strings.HasPrefix(line, "edged_records_in_total{"):
			dst = &in
		case strings.HasPrefix(line, "edged_overload_dropped_total{"):
			dst = &shed
		default:
			continue
		}
		f, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err == nil {
			*dst += int64(f)
		}
	}
	return in, shed, sc.Err()
}

func mustTemp(dir, prefix string) string {
	d, err := os.MkdirTemp(dir, prefix)
	if err != nil {
		panic(err)
	}
	return filepath.Clean(d)
}
