package actors

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/configs"
)

// upstreamLink is the daemon's connection to the upstream (an MQTT broker, or NATS
// JetStream for a nats:// URL) and the handle on the upstream-sync actor that uses it.
//
// The link never blocks the daemon on the uplink: both transports connect in the
// background, so edged starts (and keeps its outbox growing on disk) while the cloud
// is unreachable, and reconnect by themselves with exponential backoff from 1 s
// doubling to 10 s plus up to 1 s of jitter.
type upstreamLink struct {
	cfg     configs.Upstream
	log     *slog.Logger
	metrics *Metrics

	transport upstreamTransport // nil in tests that only need the blocked flag
	blocked   atomic.Bool       // outbox full under policy block: intake must stop
}

// upstreamTransport is one way to reach the cloud: mqttUplink or natsUplink.
type upstreamTransport interface {
	upstreamConn
	// close stops reconnecting and disconnects; what is not acknowledged stays in
	// the outbox and is sent again by the next run.
	close()
}

var errUpstreamDown = errors.New("not connected to the upstream broker")

// newUpstreamLink loads the TLS files and starts connecting to cfg.URL in the background.
func newUpstreamLink(ctx context.Context, cfg configs.Upstream, log *slog.Logger, m *Metrics) (*upstreamLink, error) {
	tlsCfg, err := cfg.TLS.Config()
	if err != nil {
		return nil, err
	}
	log = log.With("component", "upstream")
	l := &upstreamLink{cfg: cfg, log: log, metrics: m}
	// The connection outlives the context of Start: it stops only with close.
	ctx = context.WithoutCancel(ctx)
	if cfg.UsesNATS() {
		l.transport, err = newNATSUplink(ctx, cfg, tlsCfg, log, m)
	} else {
		l.transport = newMQTTUplink(ctx, cfg, tlsCfg, log)
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// spawn starts the upstream-sync actor on the topology's actor system.
func (l *upstreamLink) spawn(e *env) *actor.PID {
	e.intakeBlocked = l.intakeBlocked
	props := e.props(func() actor.Actor { return newUpstream(e, l.cfg, l, &l.blocked) })
	pid, err := e.system.Root.SpawnNamed(props, "upstream")
	if err != nil {
		l.log.Error("starting the upstream-sync actor", "err", err)
		return nil
	}
	return pid
}

// connected reports whether the uplink is up right now (for /healthz).
func (l *upstreamLink) connected() bool {
	return l.transport != nil && l.transport.Connected()
}

// intakeBlocked reports that the outbox is full under policy block: the router must
// stop taking QoS 0 messages and stop acknowledging QoS 1 ones until it clears.
func (l *upstreamLink) intakeBlocked() bool { return l.blocked.Load() }

// Connected and Publish make the link the actor's upstreamConn.
func (l *upstreamLink) Connected() bool { return l.connected() }

func (l *upstreamLink) Publish(b upstreamBatch, done func(error)) {
	if l.transport == nil {
		done(errUpstreamDown)
		return
	}
	l.transport.Publish(b, done)
}

// close stops the transport.
func (l *upstreamLink) close() {
	if l.transport != nil {
		l.transport.close()
	}
	l.metrics.UpstreamUp.Set(0)
}
