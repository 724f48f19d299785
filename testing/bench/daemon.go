package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
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

// startDaemon starts a daemon child working in dir against the broker at url
// and returns once it serves HTTP (its state may still be restoring).
// Non-empty profiles are the files the child writes its CPU profile and its heap
// profile near the peak to.
func startDaemon(dir, url string, qos int, cpuProfile, heapProfile string) (*daemonProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-child", "daemon", "-qos", strconv.Itoa(qos), "-input", url, "-dir", dir, "-child-cpuprofile", cpuProfile, "-child-heapprofile", heapProfile)
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
