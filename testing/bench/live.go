package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// grace is how long after its last publish a trial lets edged finish: a
// message not counted by then was not processed within the trial.
const grace = 250 * time.Millisecond

// trial is one live run at a fixed publish rate.
type trial struct {
	rate      float64 // msg/s asked for
	qos       int
	sent      int
	failed    int   // publishes the broker refused or never confirmed
	atEnd     int64 // messages edged had counted when the last one was published
	received  int64 // ... and grace later
	dropped   int64 // QoS 0 messages edged shed at intake
	paced     time.Duration
	window    time.Duration // first publish to grace after the last: the CPU window
	edgedCPU  float64       // CPU seconds of each process within the window
	brokerCPU float64
	benchCPU  float64    // the publisher and the result collector
	otherCPU  float64    // every other process on the machine
	written   diskWrites // what edged had written to storage within the window
	payload   int64      // payload bytes published
	maxRSS    float64    // daemon's peak RSS, MiB
	rssParts  rssPeak    // what the daemon's resident set was made of at its sampled peak
	rows      int        // result rows checked against the oracle
	latencies []time.Duration
	load      string // 1-minute load average when the trial ended
	ok        bool
	why       string
}

func (t *trial) String() string {
	s := fmt.Sprintf("%.0f msg/s: sent %d in %s, edged counted %d by the last publish and %d %s later, shed %d, failed %d, %d rows checked; CPU cores edged %.2f, broker %.2f, publisher+collector %.2f, other processes %.2f",
		t.rate, t.sent, t.paced.Round(time.Millisecond), t.atEnd, t.received, grace, t.dropped, t.failed, t.rows,
		t.cores(t.edgedCPU), t.cores(t.brokerCPU), t.cores(t.benchCPU), t.cores(t.otherCPU))
	if !t.ok {
		s += " -> not sustained: " + t.why
	}
	return s
}

// cores is CPU seconds per second of the trial's window.
func (t *trial) cores(cpu float64) float64 { return cpu / t.window.Seconds() }

// bottleneck names, for a trial that failed, what gave out: the publisher if it
// lagged; the machine if its cores were all busy (other processes included);
// else the process using the most CPU.
func (t *trial) bottleneck() string {
	cores := fmt.Sprintf("at %.0f msg/s: edged %.2f, broker %.2f, publisher %.2f, other processes %.2f cores of %d",
		t.rate, t.cores(t.edgedCPU), t.cores(t.brokerCPU), t.cores(t.benchCPU), t.cores(t.otherCPU), runtime.NumCPU())
	busy := t.cores(t.edgedCPU + t.brokerCPU + t.benchCPU + t.otherCPU)
	switch {
	case t.lagged():
		return "publisher (" + cores + ")"
	case busy >= 0.95*float64(runtime.NumCPU()):
		return "the CPU: every core busy (" + cores + ")"
	case t.brokerCPU > t.edgedCPU:
		return "broker (" + cores + ")"
	default:
		return "edged (" + cores + ")"
	}
}

func (t *trial) lagged() bool { return t.why == whyLagged }

const whyLagged = "the publisher could not keep the pace"

// liveResult is what the live part measured.
type liveResult struct {
	best     [2]*trial // highest sustained rate per QoS
	limit    [2]*trial // lowest rate not sustained per QoS
	fixed    [2]*trial // the fixed-rate CPU trial per QoS
	latency  *trial    // QoS 1 at latencyRate
	searched [2]bool
}

// Fixed rates of the CPU and latency rows.
const (
	cpuRate     = 20_000
	latencyRate = 10_000
)

// liveSearch measures, at QoS 0 and 1, edged's CPU per message at cpuRate and
// the highest rate sustained (every message processed within the trial, none
// shed, every window row right), and the result latency at latencyRate.
func liveSearch(dir string, o *options) (*liveResult, error) {
	res := &liveResult{}
	for _, qos := range []int{0, 1} {
		if err := searchRate(dir, qos, o, res); err != nil {
			return nil, err
		}
	}
	t, err := runTrial(dir, 1, latencyRate, o)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "live QoS 1 latency trial: %s\n", t)
	res.latency = t
	return res, nil
}

func searchRate(dir string, qos int, o *options, res *liveResult) error {
	deadline := time.Now().Add(o.liveBudget)
	lo, hi := 0.0, 0.0 // highest sustained, lowest not sustained
	rate := float64(cpuRate)
	for i := 0; i < 10 && time.Now().Before(deadline); i++ {
		t, err := runTrial(dir, qos, rate, o)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "live QoS %d: %s\n", qos, t)
		if rate == cpuRate {
			res.fixed[qos] = t
		}
		if t.ok {
			lo, res.best[qos] = rate, t
		} else {
			hi, res.limit[qos] = rate, t
		}
		switch {
		case hi == 0:
			rate *= 2
		case lo == 0:
			rate /= 2
		case hi/lo < 1.15:
			res.searched[qos] = true
			return nil
		default:
			rate = (lo + hi) / 2
		}
		if rate < 250 {
			break
		}
	}
	return nil
}

// trialSpec is what one live trial runs: its QoS and rate, how long it
// publishes, how fast event time runs and how often the daemon commits.
type trialSpec struct {
	qos    int
	rate   float64
	span   time.Duration
	pace   int64 // event time per wall time
	commit time.Duration
}

// runTrial runs one of the high-rate trials: o.liveSeconds of publishing, event
// time speedup times the wall clock, the bench's commit interval.
func runTrial(dir string, qos int, rate float64, o *options) (*trial, error) {
	return runSpec(dir, trialSpec{qos: qos, rate: rate, span: o.liveSeconds, pace: speedup, commit: benchCommit}, o)
}

// runSpec runs one trial against a fresh Mosquitto: a broker shared between
// trials would keep queueing QoS 1 copies for the previous daemons' persistent
// sessions and hand the next daemon what they left.
func runSpec(dir string, sp trialSpec, o *options) (*trial, error) {
	qos, rate := sp.qos, sp.rate
	t := &trial{rate: rate, qos: qos}
	mq, err := startMosquitto(mustTemp(dir, "mosquitto-"))
	if err != nil {
		return nil, err
	}
	defer mq.stop()
	sub := mustTemp(dir, "daemon-")
	defer os.RemoveAll(sub)
	var cpuProfile, heapProfile string
	if o.cpuProfile != "" {
		cpuProfile = fmt.Sprintf("%s-qos%d-%.0f.pprof", o.cpuProfile, qos, rate)
	}
	if o.heapProfile != "" {
		heapProfile = fmt.Sprintf("%s-qos%d-%.0f.pprof", o.heapProfile, qos, rate)
	}
	d, err := startDaemon(sub, mq.url, qos, sp.commit, o, cpuProfile, heapProfile)
	if err != nil {
		return nil, err
	}
	defer d.stop()
	metricsURL, stop := d.metricsURL, d.stop

	ctx, cancel := context.WithTimeout(context.Background(), 3*sp.span+20*time.Second)
	defer cancel()
	col, err := collect(ctx, mq.url)
	if err != nil {
		return nil, err
	}
	defer col.close()
	pub, err := connectPublisher(ctx, mq.url)
	if err != nil {
		return nil, err
	}
	defer pub.Close(time.Second)

	pid, brokerPID := d.cmd.Process.Pid, mq.cmd.Process.Pid
	c0, err := readCPU(pid, brokerPID)
	if err != nil {
		return nil, err
	}
	stopRSS := watchRSS(pid)
	began := time.Now()
	// The trial ends grace after the last publish, whether or not the broker
	// has acknowledged every QoS 1 publish by then: what edged counts later
	// was not processed within the trial.
	ended := make(chan error, 1)
	s, err := publishFeed(ctx, pub, byte(qos), rate, o.sensors, sp.span, sp.pace, o.feedTick, func() {
		var err error
		t.atEnd, _, err = scrape(metricsURL)
		if err != nil {
			ended <- err
			return
		}
		time.AfterFunc(grace, func() {
			var err error
			defer func() { ended <- err }()
			if t.received, t.dropped, err = scrape(metricsURL); err != nil {
				return
			}
			var c1 cpuSample
			if c1, err = readCPU(pid, brokerPID); err != nil {
				return
			}
			t.window = time.Since(began)
			t.edgedCPU, t.brokerCPU, t.benchCPU = c1.edged-c0.edged, c1.broker-c0.broker, c1.bench-c0.bench
			t.otherCPU = max(c1.machine-c0.machine-t.edgedCPU-t.brokerCPU-t.benchCPU, 0)
			t.written = diskWrites{c1.io.written - c0.io.written, c1.io.cancelled - c0.io.cancelled}
		})
	})
	if err != nil {
		stopRSS()
		return nil, err
	}
	err = <-ended
	t.rssParts = stopRSS()
	if err != nil {
		return nil, err
	}
	if t.maxRSS, err = procHWM(pid); err != nil {
		return nil, err
	}
	t.sent, t.failed, t.paced, t.payload = s.total, s.failed, s.paced, s.bytes
	t.load = loadAverage()

	col.awaitResults(due(s), 2*time.Second)
	got, decodeErrs := col.snapshot()
	var problem string
	t.rows, problem, t.latencies = check(s, got, decodeErrs)
	if err := stop(); err != nil {
		return nil, err
	}
	switch {
	case t.failed > 0:
		t.why = fmt.Sprintf("%d publishes failed", t.failed)
	case s.lagged:
		t.why = whyLagged
	case t.dropped > 0:
		t.why = fmt.Sprintf("edged shed %d messages", t.dropped)
	case t.received < int64(t.sent):
		t.why = fmt.Sprintf("%d messages not processed within %s of the last publish", int64(t.sent)-t.received, grace)
	case problem != "":
		t.why = problem
	default:
		t.ok = true
	}
	return t, nil
}

// cpuSample is the CPU seconds used so far by edged, the broker, this process
// and the whole machine, and what edged has written to storage.
type cpuSample struct {
	edged, broker, bench, machine float64
	io                            diskWrites
}

func readCPU(edgedPID, brokerPID int) (cpuSample, error) {
	var c cpuSample
	var err error
	if c.edged, err = procCPU(edgedPID); err != nil {
		return c, err
	}
	if c.broker, err = procCPU(brokerPID); err != nil {
		return c, err
	}
	if c.machine, err = machineBusy(); err != nil {
		return c, err
	}
	if c.io, err = procIO(edgedPID); err != nil {
		return c, err
	}
	c.bench = selfCPU()
	return c, nil
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
