// Command bench is `make bench`: edged's benchmark tables. It generates a feed
// with internal/sim, replays it through edged's actors with each durability,
// runs a plain fastjson loop over the same payloads as the yardstick, runs
// actors' BenchmarkReplay and BenchmarkHeapPerIdleKey, restarts edged on
// 100,000 open windows, and runs live trials through a private Mosquitto at
// QoS 0 and QoS 1: CPU per message at a fixed rate, the highest rate edged
// sustains, and result latency. Its gateway rows (gateway.go) take edged at
// rest, at 250 msg/s and writing to disk at 1,000 msg/s, each against its target;
// with -ekuiper, LF Edge eKuiper runs each 250 msg/s feed too (ekuiper.go).
//
// A live trial is honest about what it counts: event time runs speedup times
// faster than the wall clock so windows close while publishing, a message
// counts only if edged processed it within the trial (grace after the last
// publish), any QoS 0 shedding fails the trial, and every result row the
// broker delivers is checked against testing/oracle's recomputation over what
// was published, with every window the watermark passed required.
//
// Every measured run is a child process, so CPU time and peak RSS are its own:
// the live trials and the restart run cmd/edged built with the release flags
// (-edged names another build), the replays this binary re-executed with -child.
// Live CPU comes from /proc/<pid>/stat over the trial alone.
//
// It is a program, not a test: run it with `go run ./testing/bench` (about 10
// minutes on 2 cores, 4 of them the gateway rows) or `go run ./testing/bench
// -quick` (about 3 minutes).
// It imports whatever it measures; nothing imports it.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/edged/edged/internal/sim"
)

// wideSensors is the sensor count of the open-windows memory run.
const wideSensors = 10_000

type options struct {
	records     int
	sensors     int
	rate        float64 // readings/s per sensor in the generated file
	liveSeconds time.Duration
	liveBudget  time.Duration
	idleSpan    time.Duration // the idle row's count
	lowSpan     time.Duration // publishing time of a low-rate gateway trial
	flashSpan   time.Duration // publishing time of a flash gateway trial
	feedTick    time.Duration // the live publisher sends what is due this often
	skipLive    bool
	only        string
	cpuProfile  string // prefix of the live daemons' CPU profiles; none if empty
	heapProfile string // prefix of the live daemons' and -only rss replay's heap profiles near their peak; none if empty
	edged       string // the edged binary the live trials and the restart run; built on first use if empty
	edgedDir    string // where that build goes
	ekuiper     string // eKuiper's kuiperd and etc/, run after each low-rate trial; none if empty
	daemonYAML  string // daemon fields for the live trials and the restart, each in place of the benchmark's own or added
	child       string
	childArgs   childArgs
}

func main() {
	var o options
	quick := flag.Bool("quick", false, "a fast pass: 200,000 records and short live trials")
	flag.IntVar(&o.records, "records", 1_000_000, "records in the generated replay file")
	flag.IntVar(&o.sensors, "sensors", 1000, "sensors in the feed")
	flag.Float64Var(&o.rate, "rate", 10, "readings per second of each sensor in the generated file")
	flag.DurationVar(&o.liveSeconds, "live-trial", 5*time.Second, "publishing time of one live trial")
	flag.DurationVar(&o.liveBudget, "live-budget", 100*time.Second, "time allowed for each live rate search")
	flag.DurationVar(&o.idleSpan, "idle", 30*time.Second, "how long the idle row counts edged's CPU")
	flag.DurationVar(&o.lowSpan, "low-trial", 30*time.Second, "publishing time of a 250 msg/s gateway trial")
	flag.DurationVar(&o.flashSpan, "flash-trial", 60*time.Second, "publishing time of a 1,000 msg/s gateway trial (long enough for Badger's memtable flushes and compactions)")
	flag.DurationVar(&o.feedTick, "feed-tick", sim.PaceEvery, "the live publisher sends the readings due every this often: at 250 msg/s, 10ms sends them 2 or 3 at a time, 1ms about one at a time, as independent sensors would")
	flag.BoolVar(&o.skipLive, "no-live", false, "skip the live MQTT trials and the restart (no mosquitto needed)")
	flag.StringVar(&o.only, "only", "", "run one live part alone and print its result: latency (QoS 1 at 10,000 msg/s), cpu (QoS 0 and 1 at 20,000 msg/s), rss (peak RSS: QoS 0 at 60,000 and QoS 1 at 30,000 msg/s, and the 10,000-open-window replay), restart (100,000 open windows), or a group of gateway rows: idle (CPU with nothing arriving), low (CPU per message and result latency at 250 msg/s, QoS 0 and 1) or flash (bytes written per reading at 1,000 msg/s, QoS 0 and 1)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write each live trial's daemon CPU profile to this prefix + -qos<N>-<rate>.pprof")
	flag.StringVar(&o.heapProfile, "heapprofile", "", "write each live trial's daemon heap profile near its peak to this prefix + -qos<N>-<rate>.pprof (and -only rss's replay to prefix + -replay.pprof)")
	flag.StringVar(&o.edged, "edged", "", "the edged binary the live trials and the restart run (default: cmd/edged built with the release flags)")
	flag.StringVar(&o.ekuiper, "ekuiper", "", "a directory with eKuiper's kuiperd and etc/ (make ekuiper builds them into .cache/ekuiper): the low-rate rows also run it on the same feed and hold edged to its CPU per message in the same run")
	flag.StringVar(&o.daemonYAML, "daemon-yaml", "", "daemon fields (edged.yaml) for the live trials and the restart, one a line, each in place of the benchmark's own or added, e.g. 'commit_on_result: false'")
	flag.StringVar(&o.child, "child", "", "internal: run one measurement (replay, loop, daemon) and report it")
	o.childArgs.register()
	flag.Parse()
	if *quick {
		o.records = min(o.records, 200_000)
		o.liveSeconds = min(o.liveSeconds, 3*time.Second)
		o.liveBudget = min(o.liveBudget, 30*time.Second)
		o.idleSpan = min(o.idleSpan, 10*time.Second)
		o.lowSpan = min(o.lowSpan, 10*time.Second)
		o.flashSpan = min(o.flashSpan, 20*time.Second)
	}
	if o.child != "" {
		o.childArgs.daemonYAML = o.daemonYAML
		if err := runChild(o.child, &o.childArgs); err != nil {
			fmt.Fprintf(os.Stderr, "bench child %s: %v\n", o.child, err)
			os.Exit(1)
		}
		return
	}
	if err := bench(&o); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

// bench runs the whole table or the -only part, and removes the edged binary it
// built for them, if it did.
func bench(o *options) error {
	dir, err := os.MkdirTemp("", "edged-bench-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	o.edgedDir = dir
	if o.only != "" {
		return runOnly(o)
	}
	return run(o)
}

func run(o *options) error {
	dir, err := os.MkdirTemp("", "edged-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	began, load := time.Now(), loadAverage()
	input := filepath.Join(dir, "feed.jsonl")
	fmt.Fprintf(os.Stderr, "generating %d records from %d sensors into %s\n", o.records, o.sensors, input)
	if err := generateFeed(input, o.records, o.sensors, o.rate); err != nil {
		return err
	}
	var rows []row
	loop, err := measure(dir, "loop", "", input)
	if err != nil {
		return err
	}
	rows = append(rows, row{name: "Go loop: fastjson + map of accumulators", m: loop})
	var memory, process *measurement
	for _, d := range []string{"memory", "process", "power"} {
		fmt.Fprintf(os.Stderr, "replay, durability %s\n", d)
		m, err := measure(dir, "replay", d, input)
		if err != nil {
			return err
		}
		if memory == nil {
			memory = m
		}
		if d == "process" {
			process = m
		}
		rows = append(rows, row{name: "edged replay, durability " + d, m: m, base: memory})
	}
	// Memory with many open windows: 10,000 sensors whose first 10 s window is
	// still open when the input ends.
	wide := filepath.Join(dir, "wide.jsonl")
	fmt.Fprintf(os.Stderr, "replay, %d sensors with open windows\n", wideSensors)
	if err := generateFeed(wide, wideSensors*5, wideSensors, o.rate); err != nil {
		return err
	}
	m, err := measure(dir, "replay", "process", wide)
	if err != nil {
		return err
	}
	rows = append(rows, row{name: fmt.Sprintf("edged replay, %d sensors = %d open windows, process", wideSensors, wideSensors), m: m, base: memory})
	tg := &targets{loop: loop, process: process, wide: m}
	if !o.skipLive {
		fmt.Fprintf(os.Stderr, "restart with %d open windows\n", restartWindows)
		tg.restart, tg.restartErr = measureRestart(dir, o)
		if tg.restartErr != nil {
			fmt.Fprintf(os.Stderr, "restart: %v\n", tg.restartErr)
		} else {
			fmt.Fprintf(os.Stderr, "restart: %s\n", tg.restart)
		}
	}
	fmt.Fprintln(os.Stderr, "go test -bench BenchmarkReplay, BenchmarkHeapPerIdleKey")
	tg.gob = runGoBench()
	var gw *gateway
	if !o.skipLive {
		if tg.live, err = liveSearch(dir, o); err != nil {
			return err
		}
		gw = &gateway{fullLoad: tg.live.best[1]}
		if err := runGateway(dir, o, gw, onlyIdle, onlyLow, onlyFlash); err != nil {
			return err
		}
	}
	printTable(os.Stdout, o, rows, loop)
	fmt.Fprintln(os.Stdout)
	tg.print(os.Stdout, o)
	if gw != nil {
		fmt.Fprintln(os.Stdout)
		gw.print(os.Stdout, o)
	}
	fmt.Fprintf(os.Stdout, "\n(took %s; 1-minute load average %s at the start, %s at the end)\n",
		time.Since(began).Round(time.Second), load, loadAverage())
	if o.daemonYAML != "" {
		fmt.Fprintf(os.Stdout, "(the live trials' and the restart's daemon file: %q)\n", o.daemonYAML)
	}
	return nil
}

func header(o *options) string {
	return fmt.Sprintf("edged benchmark: %d records, %d sensors, 10 s tumbling count/avg/min/max/p95 per sensor, 500 ms disorder; "+
		"live trials of %s with event time %d× the wall clock, fresh Mosquitto and edged each; %s, %s/%s, %d CPUs",
		o.records, o.sensors, o.liveSeconds, speedup, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
}
