package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// childArgs are the internal flags of a measured child run.
type childArgs struct {
	durability  string
	input       string // replay file; broker URL of a daemon child
	qos         int
	commit      time.Duration // a daemon child's commit interval
	dir         string
	keepOpen    bool
	cpuProfile  string // a daemon child's CPU profile file, from ready to stop
	heapProfile string // a daemon or replay child's heap profile file, near its peak
	daemonYAML  string // a daemon child's -daemon-yaml
}

func (a *childArgs) register() {
	flag.StringVar(&a.durability, "durability", "memory", "internal: durability of a replay child")
	flag.StringVar(&a.input, "input", "", "internal: replay file of a child")
	flag.StringVar(&a.dir, "dir", "", "internal: working directory of a child")
	flag.IntVar(&a.qos, "qos", 1, "internal: QoS of a daemon child's subscription")
	flag.DurationVar(&a.commit, "commit-interval", benchCommit, "internal: a daemon child's commit interval")
	flag.StringVar(&a.cpuProfile, "child-cpuprofile", "", "internal: a daemon child writes its CPU profile here")
	flag.StringVar(&a.heapProfile, "child-heapprofile", "", "internal: a daemon or replay child writes a heap profile near its peak here")
	flag.BoolVar(&a.keepOpen, "keep-open", false, "internal: a replay child leaves its windows open in its data dir")
}

// measurement is what a child reports about its measured section.
type measurement struct {
	Events  int64   `json:"events"`
	Results int64   `json:"results"`
	Seconds float64 `json:"seconds"` // wall time of the section
	CPU     float64 `json:"cpu"`     // user+system seconds of the section
	MaxRSS  float64 `json:"max_rss"` // peak resident set of the process, MiB
	Note    string  `json:"note,omitempty"`
}

func (m *measurement) rate() float64 { return float64(m.Events) / m.Seconds }

// cpuPerMillion is CPU seconds per million events.
func (m *measurement) cpuPerMillion() float64 { return m.CPU / float64(m.Events) * 1e6 }

func runChild(kind string, a *childArgs) error {
	var (
		m   *measurement
		err error
	)
	if a.heapProfile != "" {
		defer watchHeapPeak(a.heapProfile)()
	}
	before := rusage()
	start := time.Now()
	switch kind {
	case "replay":
		m, err = childReplay(a)
	case "loop":
		m, err = childLoop(a)
	case "daemon":
		return childDaemon(a)
	default:
		return fmt.Errorf("unknown child %q", kind)
	}
	if err != nil {
		return err
	}
	after := rusage()
	m.Seconds = time.Since(start).Seconds()
	m.CPU = cpuSeconds(after) - cpuSeconds(before)
	if m.MaxRSS, err = peakRSS(); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(m)
}

// measure runs one child in a fresh directory and decodes its report.
func measure(dir, kind, durability, input string) (*measurement, error) {
	sub, err := os.MkdirTemp(dir, kind+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(sub)
	return measureIn(sub, kind, durability, input)
}

// measureIn runs one child working in sub, extra flags appended, and decodes
// its report.
func measureIn(sub, kind, durability, input string, extra ...string) (*measurement, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := append([]string{"-child", kind, "-durability", durability, "-input", input, "-dir", sub}, extra...)
	cmd := exec.Command(self, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s child (%s): %w", kind, filepath.Base(sub), err)
	}
	var m measurement
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("%s child reported %q: %w", kind, out.String(), err)
	}
	return &m, nil
}

func rusage() syscall.Rusage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru
}

func cpuSeconds(ru syscall.Rusage) float64 {
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// peakRSS is this process's peak resident set (VmHWM), MiB. Not getrusage's
// maxrss: Linux carries the parent's peak over into an exec'd child's.
func peakRSS() (float64, error) { return procHWM(os.Getpid()) }
