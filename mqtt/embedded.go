package mqtt

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Limits of the embedded broker's JetStream, which holds MQTT sessions,
// retained messages and queued QoS 1 messages (memory is used only for
// memory-backed streams, which MQTT does not use by default).
const (
	embeddedMaxMemory = 32 << 20
	embeddedMaxStore  = 1 << 30
	embeddedReadyWait = 10 * time.Second
	// embeddedAckWait is how long the broker waits for a PUBACK before it
	// redelivers a QoS 1 message, including one that was in flight to a
	// subscriber when it went away (nats-server's default is 30 s). edged
	// acks within a flush interval, so this only delays recovery.
	embeddedAckWait = 10 * time.Second
)

// Embedded is an in-process MQTT broker (nats-server with its MQTT listener)
// for gateways without a broker of their own and for the demo. It listens on
// loopback only.
type Embedded struct {
	s   *server.Server
	url string
}

// StartEmbedded starts the broker with its MQTT listener on listen (a
// loopback host:port with a nonzero port) and its JetStream store under
// storeDir, and returns once it accepts connections. It opens no other port:
// no NATS client port, no monitoring, no cluster.
func StartEmbedded(listen, storeDir string, logger *slog.Logger) (*Embedded, error) {
	host, portStr, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("starting the embedded broker on %q: %w", listen, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 || port > 65535 {
		return nil, fmt.Errorf("starting the embedded broker on %q: the port must be a number from 1 to 65535", listen)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("starting the embedded broker on %q: it listens on loopback only (127.0.0.1, ::1 or localhost)", listen)
	}
	opts := &server.Options{
		ServerName: "edged-embedded",
		// No NATS client listener: it would accept anyone on loopback (no
		// authentication is configured), and MQTT clients do not need it.
		DontListen:         true,
		HTTPPort:           0,
		NoSigs:             true, // the daemon handles signals
		JetStream:          true,
		JetStreamMaxMemory: embeddedMaxMemory,
		JetStreamMaxStore:  embeddedMaxStore,
		StoreDir:           storeDir,
		MQTT:               server.MQTTOpts{Host: host, Port: port, AckWait: embeddedAckWait},
	}
	// Fail fast and clearly on a port in use: nats-server would only log it
	// and let ReadyForConnections time out.
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("starting the embedded broker: %w", err)
	}
	ln.Close()
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("starting the embedded broker on %s: %w", listen, err)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	nl := &natsLogger{l: logger.With("component", "embedded-broker")}
	s.SetLoggerV2(nl, false, false, false)
	s.Start()
	if !s.ReadyForConnections(embeddedReadyWait) {
		s.Shutdown()
		s.WaitForShutdown()
		return nil, fmt.Errorf("starting the embedded broker on %s (store %s): not ready after %s: %s", listen, storeDir, embeddedReadyWait, nl.lastError())
	}
	return &Embedded{s: s, url: "tcp://" + net.JoinHostPort(host, portStr)}, nil
}

// URL is the broker's address for Options.URL, "tcp://host:port".
func (e *Embedded) URL() string { return e.url }

// Close shuts the broker down and waits until it has stopped.
func (e *Embedded) Close() {
	e.s.Shutdown()
	e.s.WaitForShutdown()
}

// natsLogger sends nats-server's log to slog and remembers the last error
// for StartEmbedded's message. Its notices (a banner of settings at startup)
// are debug-level for edged; Fatalf must not exit the process, unlike
// nats-server's own logger.
type natsLogger struct {
	l    *slog.Logger
	last atomic.Pointer[string]
}

func (n *natsLogger) lastError() string {
	if p := n.last.Load(); p != nil {
		return *p
	}
	return "no error logged"
}

func (n *natsLogger) error(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	n.last.Store(&msg)
	n.l.Error(msg)
}

func (n *natsLogger) Noticef(format string, v ...any) { n.l.Debug(fmt.Sprintf(format, v...)) }
func (n *natsLogger) Warnf(format string, v ...any)   { n.l.Warn(fmt.Sprintf(format, v...)) }
func (n *natsLogger) Fatalf(format string, v ...any)  { n.error(format, v...) }
func (n *natsLogger) Errorf(format string, v ...any)  { n.error(format, v...) }
func (n *natsLogger) Debugf(format string, v ...any)  { n.l.Debug(fmt.Sprintf(format, v...)) }
func (n *natsLogger) Tracef(format string, v ...any)  { n.l.Debug(fmt.Sprintf(format, v...)) }
