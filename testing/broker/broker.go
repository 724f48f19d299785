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
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// NoLossConfig is the part of the configuration edged's guarantee of no lost
// QoS 1 message relies on, as docs/delivery.md documents it:
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

// Mosquitto is a running (or stopped) broker process owned by one test. Stop
// saves its persistence file; Kill loses what changed since the last autosave.
type Mosquitto struct {
	*Process
	dir string // persistence directory; the config and log live there too
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
	m := &Mosquitto{dir: t.TempDir()}
	m.Process = StartProcess(t, Spec{
		Name: "mosquitto",
		Bin:  findMosquitto(t),
		Args: func(port int) ([]string, error) {
			conf := filepath.Join(m.dir, "mosquitto.conf")
			return []string{"-c", conf}, writeConfig(conf, m.dir, port, s.extra)
		},
		Ready: func(port int) error {
			conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
			if err == nil {
				conn.Close()
			}
			return err
		},
	})
	return m
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

func writeConfig(path, dir string, port int, extra []string) error {
	lines := []string{
		fmt.Sprintf("listener %d 127.0.0.1", port),
		"allow_anonymous true",
		"persistence_location " + dir + "/",
		"log_dest stderr",
	}
	if os.Geteuid() == 0 {
		// Run as root, mosquitto would drop to user "mosquitto", which cannot
		// write the test's temporary directory.
		lines = append(lines, "user root")
	}
	lines = append(lines, NoLossConfig...)
	lines = append(lines, extra...)
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// URL is the broker's address, "tcp://127.0.0.1:<port>".
func (m *Mosquitto) URL() string { return fmt.Sprintf("tcp://127.0.0.1:%d", m.Port()) }

// Dir is the persistence directory.
func (m *Mosquitto) Dir() string { return m.dir }

// Save makes the broker write its persistence file now (SIGUSR1) and waits until it
// has: a kill after it loses nothing the broker confirmed before Save was called.
// (Mosquitto is single-threaded: a save that ends after the signal began after every
// confirmation sent before it.)
func (m *Mosquitto) Save() {
	m.t.Helper()
	db := filepath.Join(m.dir, "mosquitto.db")
	asked := time.Now()
	if err := m.notify(syscall.SIGUSR1); err != nil {
		m.t.Fatalf("asking mosquitto to save: %v", err)
	}
	deadline := asked.Add(readyTimeout)
	for {
		if fi, err := os.Stat(db); err == nil && fi.ModTime().After(asked) {
			return
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("mosquitto did not save %s within %s of SIGUSR1", db, readyTimeout)
		}
		time.Sleep(pollInterval)
	}
}
