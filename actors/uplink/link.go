package uplink

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// Link is the daemon's connection to the upstream (an MQTT broker, or NATS
// JetStream for a nats:// URL) and the handle on the upstream-sync actor that uses it.
//
// The link never blocks the daemon on the uplink: both transports connect in the
// background, so edged starts (and keeps its outbox growing on disk) while the cloud
// is unreachable, and reconnect by themselves with exponential backoff from 1 s
// doubling to 10 s plus up to 1 s of jitter.
type Link struct {
	cfg     configs.Upstream
	log     *slog.Logger
	metrics *Metrics

	transport upstreamTransport // nil in tests that only need the blocked flag
	blocked   atomic.Bool       // outbox full under policy block: intake must stop
	busy      atomic.Bool       // the actor holds records to send (env.busy)
}

// upstreamTransport is one way to reach the cloud: mqttUplink or natsUplink.
type upstreamTransport interface {
	upstreamConn
	// close stops reconnecting and disconnects; what is not acknowledged stays in
	// the outbox and is sent again by the next run.
	close()
}

var errUpstreamDown = errors.New("not connected to the upstream broker")

// Start loads the TLS files and starts connecting to cfg.URL in the background.
func Start(ctx context.Context, cfg configs.Upstream, log *slog.Logger, m *Metrics) (*Link, error) {
	tlsCfg, err := cfg.TLS.Config()
	if err != nil {
		return nil, err
	}
	log = log.With("component", "upstream")
	l := &Link{cfg: cfg, log: log, metrics: m}
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

// Spawn starts the upstream-sync actor on the runtime's actor system: props runs it
// on the runtime's dispatcher, the actor reads and deletes outbox entries in store,
// and log is the runtime's.
func (l *Link) Spawn(root *actor.RootContext, props func(actor.Producer, ...actor.PropsOption) *actor.Props,
	store *persist.Store, log *slog.Logger, wake func()) *actor.PID {
	e := &env{store: store, log: log, metrics: l.metrics, busy: &l.busy, wake: wake}
	pid, err := root.SpawnNamed(props(func() actor.Actor { return newUpstream(e, l.cfg, l, &l.blocked) }), "upstream")
	if err != nil {
		l.log.Error("starting the upstream-sync actor", "err", err)
		return nil
	}
	return pid
}

// Connected reports whether the uplink is up right now (for /healthz and the actor).
func (l *Link) Connected() bool {
	return l.transport != nil && l.transport.Connected()
}

// Busy reports that the upstream-sync actor holds records to send: it wants a tick
// every few milliseconds, and a tick a second otherwise. wake, given to Spawn, is
// called when it turns busy.
func (l *Link) Busy() bool { return l.busy.Load() }

// IntakeBlocked reports that the outbox is full under policy block: the router must
// stop taking QoS 0 messages and stop acknowledging QoS 1 ones until it clears.
func (l *Link) IntakeBlocked() bool { return l.blocked.Load() }

// publish makes the link, with Connected, the actor's upstreamConn.
func (l *Link) publish(b upstreamBatch, done func(error)) {
	if l.transport == nil {
		done(errUpstreamDown)
		return
	}
	l.transport.publish(b, done)
}

// Close stops the transport.
func (l *Link) Close() {
	if l.transport != nil {
		l.transport.close()
	}
	l.metrics.Connected.Set(0)
}
