package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/edged/edged/actors"
)

// daemonProc is a running `edged run` child on the benchmark config.
type daemonProc struct {
	cmd        *exec.Cmd
	metricsURL string
	healthURL  string
	exited     chan error
	stopped    bool
}

// startDaemon starts a daemon working in dir against the broker at url,
// subscribing at qos and committing every commit, and
// returns once it has subscribed (its state may still be restoring). It runs the
// release build of edged (o.edgedBinary), so the live rows measure the binary a
// gateway runs. Non-empty profiles are files to write the daemon's CPU profile and its
// heap profile near the peak to; only this binary's daemon child can, so a
// profiled run measures that child instead (about 2 MiB more RSS: its binary
// carries the benchmark and symbols).
func startDaemon(dir, url string, qos int, commit time.Duration, o *options, cpuProfile, heapProfile string) (*daemonProc, error) {
	if cpuProfile != "" || heapProfile != "" {
		return startDaemonChild(dir, url, qos, commit, o.daemonYAML, cpuProfile, heapProfile)
	}
	bin, err := o.edgedBinary()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	_, config, err := writeConfig(dir, "process", url, addr, qos, commit, o.daemonYAML)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "run", "-config", config)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &daemonProc{cmd: cmd, exited: make(chan error, 1),
		metricsURL: "http://" + addr + "/metrics", healthURL: "http://" + addr + "/healthz"}
	go func() { d.exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		// Subscribed, as the daemon child is when it says ready: a trial may publish.
		if up, err := metricSum(d.metricsURL, "edged_broker_connected"); err == nil && up > 0 {
			return d, nil
		}
		select {
		case err := <-d.exited:
			return nil, fmt.Errorf("%s run -config %s exited before it subscribed: %v", bin, config, err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			return nil, fmt.Errorf("%s did not subscribe within 60s (metrics on %s)", bin, addr)
		}
	}
}

// startDaemonChild starts this binary's daemon child, which can profile itself.
func startDaemonChild(dir, url string, qos int, commit time.Duration, daemonYAML, cpuProfile, heapProfile string) (*daemonProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-child", "daemon", "-qos", strconv.Itoa(qos), "-input", url, "-dir", dir, "-commit-interval", commit.String(), "-daemon-yaml", daemonYAML, "-child-cpuprofile", cpuProfile, "-child-heapprofile", heapProfile)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &daemonProc{cmd: cmd, exited: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		addr <- strings.TrimSpace(strings.TrimPrefix(line, "ready "))
		io.Copy(io.Discard, stdout)
		d.exited <- cmd.Wait()
	}()
	select {
	case a := <-addr:
		if a == "" {
			return nil, fmt.Errorf("the daemon child did not start: %v", <-d.exited)
		}
		d.metricsURL, d.healthURL = "http://"+a+"/metrics", "http://"+a+"/healthz"
		return d, nil
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return nil, errors.New("the daemon child did not start within 60s")
	}
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// edgedBinary returns -edged, or else builds cmd/edged with the release flags
// (make dist's, without the version) into o.edgedDir the first time. The build
// needs the module in the working directory, as `go run ./testing/bench` has.
func (o *options) edgedBinary() (string, error) {
	if o.edged != "" {
		return o.edged, nil
	}
	bin := filepath.Join(o.edgedDir, "edged")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "./cmd/edged")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building edged for the live trials (run the benchmark from the repository, or pass -edged): %v\n%s", err, out)
	}
	o.edged = bin
	return bin, nil
}

// stop asks the daemon to stop and waits for it; later calls do nothing.
func (d *daemonProc) stop() error {
	if d.stopped {
		return nil
	}
	d.stopped = true
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.exited:
		if err != nil {
			return fmt.Errorf("daemon child: %w", err)
		}
		return nil
	case <-time.After(40 * time.Second):
		d.cmd.Process.Kill()
		return errors.New("the daemon child did not stop within 40s")
	}
}

// childDaemon is `edged run` on the benchmark config: it prints its metrics
// address once it takes messages and stops cleanly on SIGTERM.
func childDaemon(a *childArgs) error {
	cfg, _, err := writeConfig(a.dir, "process", a.input, "127.0.0.1:0", a.qos, a.commit, a.daemonYAML)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer cancel()
	d, err := actors.Start(ctx, cfg, discardLogger())
	if err != nil {
		return err
	}
	if a.cpuProfile != "" {
		f, err := os.Create(a.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("ready %s\n", d.HTTPAddr())
	<-ctx.Done()
	return d.Stop(30 * time.Second)
}
