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
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/edged/edged/testing/broker"
)

// Server is a running (or stopped) nats-server owned by one test.
type Server struct {
	*broker.Process
	t testing.TB
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

// Option changes how Start configures the server.
type Option func(*settings)

type settings struct{ maxPayload int }

// WithMaxPayload sets the server's max_payload, the largest message it takes (1 MiB
// unless set); a client refuses to send a larger one.
func WithMaxPayload(bytes int) Option {
	return func(s *settings) { s.maxPayload = bytes }
}

// Start runs nats-server -js on a free loopback port and waits until JetStream
// answers. The test is skipped if nats-server is not installed. The server is
// stopped when the test ends; its log is printed if the test failed. Restart
// keeps the port and the JetStream store.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	bin := Bin()
	if bin == "" {
		t.Skip("nats-server is not installed (not in PATH nor /usr/sbin): install it with `apt-get install -y nats-server`")
	}
	var s settings
	for _, o := range opts {
		o(&s)
	}
	dir := t.TempDir()
	return &Server{t: t, Process: broker.StartProcess(t, broker.Spec{
		Name: "nats-server",
		Bin:  bin,
		Args: func(port int) ([]string, error) {
			args := []string{"-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", dir}
			if s.maxPayload == 0 {
				return args, nil
			}
			// max_payload has no command-line flag.
			conf := filepath.Join(dir, "nats-server.conf")
			return append(args, "-c", conf), os.WriteFile(conf, fmt.Appendf(nil, "max_payload: %d\n", s.maxPayload), 0o644)
		},
		Ready: func(port int) error { return jetStreamReady(url(port)) },
	})}
}

func url(port int) string { return fmt.Sprintf("nats://127.0.0.1:%d", port) }

// jetStreamReady answers whether the server takes connections and JetStream
// requests (after a restart it recovers its streams first).
func jetStreamReady(addr string) error {
	nc, err := nats.Connect(addr, nats.Timeout(time.Second), nats.NoReconnect())
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

// URL is the server's address, "nats://127.0.0.1:<port>"; it stays the same across restarts.
func (s *Server) URL() string { return url(s.Port()) }

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
