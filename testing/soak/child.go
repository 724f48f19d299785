package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// replayRun is what one `edged replay` child cost.
type replayRun struct {
	wall    time.Duration
	cpu     time.Duration // user + system
	peakRSS int64         // bytes: the child's own peak resident set (VmHWM)
	disk    int64         // bytes the data dir takes on disk after the run
	series  int           // samples in the child's Prometheus exposition
	dropped int           // edged_dropped_total, summed over its series
}

// replayJob names the files of one replay.
type replayJob struct {
	bin, config, input, data, output, metrics string
	keepOpen                                  bool
	log                                       io.Writer // the child's complaints, the first few lines
}

// rssPoll is how often the child's VmHWM is read while it runs.
const rssPoll = 20 * time.Millisecond

// run runs `edged replay` as a child process and measures it.
func (j *replayJob) run() (replayRun, error) {
	var r replayRun
	args := []string{"replay", "--config", j.config, "--input", j.input, "--data", j.data, "--output", j.output, "--metrics", j.metrics}
	if j.keepOpen {
		args = append(args, "--keep-open")
	}
	cmd := exec.Command(j.bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	own, err := vmHWM(os.Getpid())
	if err != nil {
		return r, err
	}
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		return r, fmt.Errorf("starting %s: %w", j.bin, err)
	}
	stop, polled := pollHWM(cmd.Process.Pid)
	err = cmd.Wait()
	r.wall = time.Since(begin)
	close(stop)
	hwm := <-polled
	if err != nil {
		return r, fmt.Errorf("edged replay of %s: %w\n%s", filepath.Base(j.input), err, stderr.String())
	}
	if stderr.Len() > 0 {
		fmt.Fprintf(j.log, "edged replay of %s said:\n%s", filepath.Base(j.input), head(stderr.String(), maxLogged))
	}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	// getrusage's maxrss is the child's own peak only if it exceeds this
	// process's peak when the child started: Linux carries the parent's peak
	// over into a child it forks and execs. Otherwise the last VmHWM read
	// before the child exited is the best measure there is.
	r.peakRSS = hwm
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && int64(ru.Maxrss)*1024 > own {
		r.peakRSS = max(r.peakRSS, int64(ru.Maxrss)*1024)
	}
	if r.disk, err = diskUsage(j.data); err != nil {
		return r, err
	}
	if r.series, r.dropped, err = readMetrics(j.metrics); err != nil {
		return r, err
	}
	return r, nil
}

// head returns the first n lines of s, and how many it left out.
func head(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n+1 {
		return s
	}
	return strings.Join(lines[:n], "") + fmt.Sprintf("(%d more lines)\n", len(lines)-n-1)
}

// pollHWM reads pid's VmHWM every rssPoll until stop is closed, then sends the
// highest value it read.
func pollHWM(pid int) (stop chan struct{}, peak chan int64) {
	stop, peak = make(chan struct{}), make(chan int64, 1)
	go func() {
		var best int64
		tick := time.NewTicker(rssPoll)
		defer tick.Stop()
		for {
			if v, err := vmHWM(pid); err == nil {
				best = max(best, v)
			}
			select {
			case <-stop:
				peak <- best
				return
			case <-tick.C:
			}
		}
	}()
	return stop, peak
}

// vmHWM is pid's peak resident set so far, bytes.
func vmHWM(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/%d/status: VmHWM %q: %w", pid, v, err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmHWM", pid)
}

// diskUsage is what dir's files take on disk (their allocated blocks, as du
// counts them), bytes.
func diskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("measuring the data dir %s: %w", dir, err)
	}
	return total, nil
}

// readMetrics counts the samples of a Prometheus text exposition (the series a
// scrape would store) and sums edged_dropped_total.
func readMetrics(path string) (series, dropped int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("reading the replay's metrics: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		series++
		if rest, ok := strings.CutPrefix(line, "edged_dropped_total{"); ok {
			_, value, _ := strings.Cut(rest, "} ")
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("%s: %q: %w", path, line, err)
			}
			dropped += int(v)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return series, dropped, nil
}
