package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times; 100 on every
// Linux architecture Go supports.
const clockTicks = 100

// procCPU is the user+system CPU seconds pid has used so far, read while it
// runs, so a trial can take the CPU of its own window rather than the whole
// process lifetime (start-up and shutdown excluded).
func procCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces; the fields after it are fixed.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name in %q", pid, b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command name, want at least 13", pid, len(f))
	}
	ut, err1 := strconv.ParseFloat(f[11], 64) // utime, field 14
	st, err2 := strconv.ParseFloat(f[12], 64) // stime, field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q are not numbers", pid, f[11], f[12])
	}
	return (ut + st) / clockTicks, nil
}

// procHWM is pid's peak resident set so far (VmHWM), MiB.
func procHWM(pid int) (float64, error) { return procStatusMiB(pid, "VmHWM") }

// procRSS is pid's resident set now (VmRSS), MiB.
func procRSS(pid int) (float64, error) { return procStatusMiB(pid, "VmRSS") }

// procStatusMiB reads a size field of /proc/<pid>/status, MiB.
func procStatusMiB(pid int, field string) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := statusKB(v)
			if err != nil {
				return 0, fmt.Errorf("/proc/%d/status: %s %q: %w", pid, field, v, err)
			}
			return float64(kb) / 1024, nil
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, field)
}

// statusKB reads a size field's value from /proc/<pid>/status ("\t  1234 kB").
func statusKB(v string) (int64, error) {
	return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
}

// selfCPU is this process's CPU seconds so far: the publisher and the result
// collector of the live trials.
func selfCPU() float64 { return cpuSeconds(rusage()) }

// machineBusy is the CPU seconds all processes have used so far (/proc/stat),
// so a trial can tell how much of the cores other work on the machine took.
func machineBusy() (float64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: first line %q is not the cpu total", line)
	}
	var busy float64
	for i, s := range f[1:8] { // user nice system idle iowait irq softirq
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: cpu field %d %q: %w", i+1, s, err)
		}
		if i != 3 && i != 4 {
			busy += v
		}
	}
	return busy / clockTicks, nil
}

// loadAverage is the first field of /proc/loadavg, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// rssPeak is the sample with the highest VmRSS among /proc/<pid>/status texts: its
// resident set and how much of it is anonymous memory, file pages (the executable,
// Badger's mapped files) and shared memory, kB.
type rssPeak struct {
	rss, anon, file, shmem int64
}

func (p *rssPeak) see(status string) {
	var s rssPeak
	for l := range strings.Lines(status) {
		k, v, _ := strings.Cut(l, ":")
		var dst *int64
		switch k {
		case "VmRSS":
			dst = &s.rss
		case "RssAnon":
			dst = &s.anon
		case "RssFile":
			dst = &s.file
		case "RssShmem":
			dst = &s.shmem
		default:
			continue
		}
		*dst, _ = statusKB(v)
	}
	if s.rss > p.rss {
		*p = s
	}
}

func (p *rssPeak) String() string {
	return fmt.Sprintf("VmRSS %.1f MiB: anonymous %.1f, file %.1f, shared %.1f", mib(p.rss), mib(p.anon), mib(p.file), mib(p.shmem))
}

func mib(kb int64) float64 { return float64(kb) / 1024 }

// watchRSS samples pid's resident set every heapPeakEvery until stop, which returns
// the sample at its peak: VmHWM says how high it went, this what it was made of.
func watchRSS(pid int) (stop func() rssPeak) {
	done, finished := make(chan struct{}), make(chan rssPeak)
	go func() {
		var peak rssPeak
		tick := time.NewTicker(heapPeakEvery)
		defer tick.Stop()
		for {
			if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
				peak.see(string(status))
			}
			select {
			case <-done:
				finished <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() rssPeak { close(done); return <-finished }
}

// diskWrites is what /proc/<pid>/io says a process has caused to be written to
// storage so far, bytes: write_bytes counts each page when the process dirties
// it, cancelled_write_bytes the dirty pages of files truncated or deleted before
// they were written back.
type diskWrites struct{ written, cancelled int64 }

func procIO(pid int) (diskWrites, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return diskWrites{}, err
	}
	return parseProcIO(string(b))
}

func parseProcIO(text string) (diskWrites, error) {
	var w diskWrites
	var seen int
	for l := range strings.Lines(text) {
		k, v, _ := strings.Cut(l, ":")
		var dst *int64
		switch k {
		case "write_bytes":
			dst = &w.written
		case "cancelled_write_bytes":
			dst = &w.cancelled
		default:
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return w, fmt.Errorf("/proc/<pid>/io: %s %q: %w", k, v, err)
		}
		*dst = n
		seen++
	}
	if seen != 2 {
		return w, fmt.Errorf("/proc/<pid>/io has no write_bytes or cancelled_write_bytes (a kernel without task I/O accounting?)")
	}
	return w, nil
}

// procRuntime is the CPU seconds pid's threads now running have used so far
// (the first field of each /proc/<pid>/task/*/schedstat, in ns): finer than
// procCPU's clock ticks, which over the idle row's 30 s are 0.033 % of a core
// each, but it misses threads that have exited, which Go's rarely do.
func procRuntime(pid int) (float64, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil {
		return 0, err
	}
	var ns int64
	for _, path := range tasks {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the thread has exited
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, fmt.Errorf("%s is empty", path)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		ns += n
	}
	if len(tasks) == 0 {
		return 0, fmt.Errorf("/proc/%d has no task schedstat", pid)
	}
	return float64(ns) / 1e9, nil
}
