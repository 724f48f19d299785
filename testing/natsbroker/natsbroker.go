// Package natsbroker starts a real nats-server with JetStream for tests: on a
// free loopback port, with a store directory of its own, so a test can stop,
// kill and restart it on the same port with the same streams. It also reads a
// stream back, message by message, for the test's final count.
//
// It is test support: no production package may import it.
package natsbroker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/edged/edged/testing/broker"
)

const (
	readyTimeout = 10 * time.Second
	stopTimeout  = 10 * time.Second
	pollInterval = 10 * time.Millisecond
)

// Server is a running (or stopped) nats-server owned by one test.
type Server struct {
	t    testing.TB
	bin  string
	dir  string // JetStream store directory
	port int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	log  *broker.SyncBuffer
}

// Bin is the nats-server binary, or "" when it is not installed.
func Bin() string {
	if p, err := exec.LookPath("nats-server"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/nats-server", "/usr/local/bin/nats-server"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Start runs nats-server -js on a free loopback port and waits until it accepts
// connections. The test is skipped if nats-server is not installed. The server
// is stopped when the test ends; its log is printed if the test failed.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Bin()
	if bin == "" {
		t.Skip("nats-server is not installed (not in PATH nor /usr/sbin): install it with `apt-get install -y nats-server`")
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir(), log: &broker.SyncBuffer{}}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("nats-server log (port %d):\n%s", s.port, s.log.String())
		}
	})
	var err error
	for range 3 { // another process may take the free port before the server binds it
		if s.port, err = freePort(); err != nil {
			break
		}
		if err = s.start(); err == nil {
			return s
		}
	}
	t.Fatalf("starting nats-server: %v\n%s", err, s.log.String())
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

func (s *Server) start() error {
	cmd := exec.Command(s.bin, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-sd", s.dir)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()

	deadline := time.Now().Add(readyTimeout)
	for {
		select {
		case <-done:
			return fmt.Errorf("nats-server on port %d exited at startup: %v", s.port, cmd.ProcessState)
		default:
		}
		err := s.jetStreamReady()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			s.signal(syscall.SIGKILL)
			return fmt.Errorf("nats-server on port %d not serving JetStream after %s: %w", s.port, readyTimeout, err)
		}
		select {
		case <-done:
		case <-time.After(pollInterval):
		}
	}
}

// jetStreamReady answers whether the server takes connections and JetStream
// requests (after a restart it recovers its streams first).
func (s *Server) jetStreamReady() error {
	nc, err := nats.Connect(s.URL(), nats.Timeout(time.Second), nats.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

func (s *Server) signal(sig syscall.Signal) {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		s.t.Errorf("signalling nats-server on port %d: %v", s.port, err)
	}
	select {
	case <-done:
	case <-time.After(stopTimeout):
		s.t.Errorf("nats-server on port %d ignored %v for %s; killing it", s.port, sig, stopTimeout)
		cmd.Process.Kill()
		<-done
	}
}

// URL is the server's address, "nats://127.0.0.1:<port>"; it stays the same across restarts.
func (s *Server) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

// Stop shuts the server down cleanly (SIGTERM) and waits for it to exit.
func (s *Server) Stop() { s.signal(syscall.SIGTERM) }

// Kill stops the server with SIGKILL, as a crash would.
func (s *Server) Kill() { s.signal(syscall.SIGKILL) }

// Restart stops the server if it runs and starts it again on the same port with
// the same store, waiting until JetStream answers.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.t.Fatalf("restarting nats-server: %v\n%s", err, s.log.String())
	}
}

// Msg is a message read back from a stream.
type Msg struct {
	Subject, ID string // ID is the Nats-Msg-Id header
	Data        []byte
}

// Messages reads every message of stream, oldest first.
func (s *Server) Messages(stream string) []Msg {
	s.t.Helper()
	nc, err := nats.Connect(s.URL())
	if err != nil {
		s.t.Fatalf("connecting to read stream %s: %v", stream, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		s.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := js.Stream(ctx, stream)
	if err != nil {
		s.t.Fatalf("looking up stream %s: %v", stream, err)
	}
	total := st.CachedInfo().State.Msgs
	cons, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		s.t.Fatalf("reading stream %s: %v", stream, err)
	}
	var out []Msg
	for uint64(len(out)) < total {
		batch, err := cons.Fetch(1000, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			s.t.Fatalf("reading stream %s: %v", stream, err)
		}
		n := 0
		for m := range batch.Messages() {
			out = append(out, Msg{Subject: m.Subject(), ID: m.Headers().Get(jetstream.MsgIDHeader), Data: m.Data()})
			n++
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			s.t.Fatalf("reading stream %s: %v", stream, err)
		}
		if n == 0 {
			s.t.Fatalf("reading stream %s: got %d of %d messages, then nothing", stream, len(out), total)
		}
	}
	return out
}

// Count is how many messages stream holds, or 0 if it does not exist (yet).
func (s *Server) Count(stream string) uint64 {
	nc, err := nats.Connect(s.URL(), nats.Timeout(time.Second), nats.NoReconnect())
	if err != nil {
		return 0
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return 0
	}
	return st.CachedInfo().State.Msgs
}
