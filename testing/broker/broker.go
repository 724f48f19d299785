// Package broker starts a real Mosquitto broker for tests: on a free
// loopback port, with a persistence directory of its own and a configuration
// that states the settings edged's no-loss promise needs. It can be stopped,
// killed and restarted on the same port with the same persisted sessions.
//
// It also holds SyncBuffer, the goroutine-safe buffer the test packages use
// for child-process and log output, and Gate, a proxy in front of a broker
// that loses a client's packets on purpose.
//
// It is test support: it imports only the standard library, and no
// production package may import it.
package broker

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

// NoLossConfig is the part of the configuration edged's guarantee of no lost
// QoS 1 message relies on, as the README documents it:
//   - persistence with a short autosave, so persistent sessions and their
//     queued messages survive a restart (a clean stop always saves; a kill
//     loses at most the last second);
//   - unbounded queues: Mosquitto's default max_queued_messages 1000 silently
//     drops QoS 1 messages for a subscriber that falls behind;
//   - unbounded in-flight messages: edged acknowledges a message only after
//     its effect is committed, so a small in-flight window (default 20) would
//     throttle intake to a few windows' worth per commit.
var NoLossConfig = []string{
	"persistence true",
	"autosave_interval 1",
	"max_queued_messages 0",
	"max_queued_bytes 0",
	"max_inflight_messages 0",
	"set_tcp_nodelay true",
}

// Option changes how Start configures the broker.
type Option func(*settings)

type settings struct{ extra []string }

// WithConfig appends lines to the generated mosquitto.conf; a later line
// overrides an earlier one for single-valued settings.
func WithConfig(lines ...string) Option {
	return func(s *settings) { s.extra = append(s.extra, lines...) }
}

// Mosquitto is a running (or stopped) broker process owned by one test.
type Mosquitto struct {
	t    testing.TB
	bin  string
	dir  string // persistence directory; the config and log live there too
	port int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	log  *SyncBuffer
}

// Start runs mosquitto on a free loopback port and waits until it accepts
// connections. The test fails if mosquitto is not installed. The broker is
// stopped when the test ends; its log is printed if the test failed.
func Start(t testing.TB, opts ...Option) *Mosquitto {
	t.Helper()
	var s settings
	for _, o := range opts {
		o(&s)
	}
	bin := findMosquitto(t)
	m := &Mosquitto{t: t, bin: bin, dir: t.TempDir(), log: &SyncBuffer{}}
	t.Cleanup(func() {
		m.Stop()
		if t.Failed() {
			t.Logf("mosquitto log (port %d):\n%s", m.port, m.log.String())
		}
	})
	// Another process may grab the free port between picking and binding it.
	var err error
	for range 3 {
		if m.port, err = freePort(); err != nil {
			break
		}
		if err = m.writeConfig(s.extra); err != nil {
			break
		}
		if err = m.start(); err == nil {
			return m
		}
	}
	t.Fatalf("starting mosquitto: %v\n%s", err, m.log.String())
	return nil
}

func findMosquitto(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("mosquitto"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("mosquitto is not installed (not in PATH nor /usr/sbin): install it with `apt-get install -y mosquitto`")
	return ""
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (m *Mosquitto) confPath() string { return filepath.Join(m.dir, "mosquitto.conf") }

func (m *Mosquitto) writeConfig(extra []string) error {
	lines := []string{
		fmt.Sprintf("listener %d 127.0.0.1", m.port),
		"allow_anonymous true",
		"persistence_location " + m.dir + "/",
		"log_dest stderr",
	}
	if os.Geteuid() == 0 {
		// Run as root, mosquitto would drop to user "mosquitto", which cannot
		// write the test's temporary directory.
		lines = append(lines, "user root")
	}
	lines = append(lines, NoLossConfig...)
	lines = append(lines, extra...)
	return os.WriteFile(m.confPath(), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// start launches the process and waits for the port to accept connections.
func (m *Mosquitto) start() error {
	cmd := exec.Command(m.bin, "-c", m.confPath())
	cmd.Stdout, cmd.Stderr = m.log, m.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running %s: %w", m.bin, err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	m.mu.Lock()
	m.cmd, m.done = cmd, done
	m.mu.Unlock()

	deadline := time.Now().Add(readyTimeout)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(m.port))
	for {
		select {
		case <-done:
			return fmt.Errorf("mosquitto on port %d exited at startup: %v", m.port, cmd.ProcessState)
		default:
		}
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			m.signal(syscall.SIGKILL)
			return fmt.Errorf("mosquitto on port %d not accepting connections after %s: %w", m.port, readyTimeout, err)
		}
		select {
		case <-done:
		case <-time.After(pollInterval):
		}
	}
}

// signal sends sig and waits for the process to exit (SIGKILL after
// stopTimeout if it does not). It does nothing if the broker is not running.
func (m *Mosquitto) signal(sig syscall.Signal) {
	m.mu.Lock()
	cmd, done := m.cmd, m.done
	m.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		m.t.Errorf("signalling mosquitto on port %d: %v", m.port, err)
	}
	select {
	case <-done:
	case <-time.After(stopTimeout):
		m.t.Errorf("mosquitto on port %d ignored %v for %s; killing it", m.port, sig, stopTimeout)
		cmd.Process.Kill()
		<-done
	}
}

// URL is the broker's address, "tcp://127.0.0.1:<port>".
func (m *Mosquitto) URL() string { return fmt.Sprintf("tcp://127.0.0.1:%d", m.port) }

// Port is the broker's TCP port; it stays the same across restarts.
func (m *Mosquitto) Port() int { return m.port }

// Dir is the persistence directory.
func (m *Mosquitto) Dir() string { return m.dir }

// Log is what mosquitto has printed so far.
func (m *Mosquitto) Log() string { return m.log.String() }

// Stop shuts the broker down cleanly (SIGTERM), which saves its persistence
// file, and waits for it to exit.
func (m *Mosquitto) Stop() { m.signal(syscall.SIGTERM) }

// Kill stops the broker with SIGKILL, as a crash or power cut would: state
// changed since the last autosave is lost.
func (m *Mosquitto) Kill() { m.signal(syscall.SIGKILL) }

// Restart stops the broker if it is running and starts it again on the same
// port with the same persistence directory, waiting until it accepts
// connections.
func (m *Mosquitto) Restart() {
	m.t.Helper()
	m.Stop()
	if err := m.start(); err != nil {
		m.t.Fatalf("restarting mosquitto: %v\n%s", err, m.log.String())
	}
}
