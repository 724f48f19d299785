package broker

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	readyTimeout = 10 * time.Second
	stopTimeout  = 10 * time.Second
	pollInterval = 10 * time.Millisecond
)

// Spec says how to run one kind of server for a test.
type Spec struct {
	Name string // for messages: "mosquitto", "nats-server"
	Bin  string
	// Args are the server's arguments for port; it may write files the server reads.
	Args func(port int) ([]string, error)
	// Ready answers nil once the server on port serves what the test needs.
	Ready func(port int) error
}

// Process is a server process owned by one test: on a free loopback port that
// stays the same across Stop, Kill and Restart, its output kept for the test's
// failure log.
type Process struct {
	t    testing.TB
	spec Spec
	port int
	args []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	log  *SyncBuffer
}

// StartProcess runs spec's server on a free loopback port and waits until it is
// ready. It is stopped when the test ends; its log is printed if the test failed.
func StartProcess(t testing.TB, spec Spec) *Process {
	t.Helper()
	p := &Process{t: t, spec: spec, log: &SyncBuffer{}}
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("%s log (port %d):\n%s", spec.Name, p.port, p.log.String())
		}
	})
	// Another process may grab the free port between picking and binding it.
	var err error
	for range 3 {
		if p.port, err = freePort(); err != nil {
			break
		}
		if p.args, err = spec.Args(p.port); err != nil {
			break
		}
		if err = p.start(); err == nil {
			return p
		}
	}
	t.Fatalf("starting %s: %v\n%s", spec.Name, err, p.log.String())
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// start launches the process and waits until it is ready.
func (p *Process) start() error {
	cmd := exec.Command(p.spec.Bin, p.args...)
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running %s: %w", p.spec.Bin, err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	p.mu.Lock()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()

	deadline := time.Now().Add(readyTimeout)
	for {
		select {
		case <-done:
			return fmt.Errorf("%s on port %d exited at startup: %v", p.spec.Name, p.port, cmd.ProcessState)
		default:
		}
		err := p.spec.Ready(p.port)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			p.signal(syscall.SIGKILL)
			return fmt.Errorf("%s on port %d not ready after %s: %w", p.spec.Name, p.port, readyTimeout, err)
		}
		select {
		case <-done:
		case <-time.After(pollInterval):
		}
	}
}

// signal sends sig and waits for the process to exit (SIGKILL after
// stopTimeout if it does not). It does nothing if the server is not running.
func (p *Process) signal(sig syscall.Signal) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		p.t.Errorf("signalling %s on port %d: %v", p.spec.Name, p.port, err)
	}
	select {
	case <-done:
	case <-time.After(stopTimeout):
		p.t.Errorf("%s on port %d ignored %v for %s; killing it", p.spec.Name, p.port, sig, stopTimeout)
		cmd.Process.Kill()
		<-done
	}
}

// notify sends sig to the running server and returns: a signal it acts on and
// goes on running.
func (p *Process) notify(sig syscall.Signal) error {
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if cmd == nil {
		return fmt.Errorf("%s on port %d is not running", p.spec.Name, p.port)
	}
	return cmd.Process.Signal(sig)
}

// Port is the server's TCP port; it stays the same across restarts.
func (p *Process) Port() int { return p.port }

// Log is what the server has printed so far.
func (p *Process) Log() string { return p.log.String() }

// Stop shuts the server down cleanly (SIGTERM) and waits for it to exit.
func (p *Process) Stop() { p.signal(syscall.SIGTERM) }

// Kill stops the server with SIGKILL, as a crash or power cut would.
func (p *Process) Kill() { p.signal(syscall.SIGKILL) }

// Restart stops the server if it is running and starts it again on the same
// port with the same arguments, waiting until it is ready.
func (p *Process) Restart() {
	p.t.Helper()
	p.Stop()
	if err := p.start(); err != nil {
		p.t.Fatalf("restarting %s: %v\n%s", p.spec.Name, err, p.log.String())
	}
}
