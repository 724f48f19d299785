package actors

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/mqtt"
)

// upstreamLink is the daemon's connection to the upstream broker and the handle on the
// upstream-sync actor that uses it.
//
// The link never blocks the daemon on the uplink: it dials in the background, so edged
// starts (and keeps its outbox growing on disk) while the cloud is unreachable. The
// mqtt.Client retries the first connection every second and, once connected, reconnects
// by itself with exponential backoff from 1 s doubling to 10 s (see mqtt/client.go); a
// publish issued before a drop is resent by the client after the reconnect.
type upstreamLink struct {
	cfg     configs.Upstream
	log     *slog.Logger
	metrics *Metrics

	client  atomic.Pointer[mqtt.Client]
	cancel  context.CancelFunc
	dialed  chan struct{} // closed when the background dial returned
	blocked atomic.Bool   // outbox full under policy block: intake must stop

}

var errUpstreamDown = errors.New("not connected to the upstream broker")

// newUpstreamLink loads the TLS files and starts dialling cfg.URL in the background.
func newUpstreamLink(ctx context.Context, cfg configs.Upstream, log *slog.Logger, m *Metrics) (*upstreamLink, error) {
	tlsCfg, err := cfg.TLS.Config()
	if err != nil {
		return nil, err
	}
	log = log.With("component", "upstream")
	// The dial outlives the context of Start: it stops only with close.
	dialCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l := &upstreamLink{cfg: cfg, log: log, metrics: m, cancel: cancel, dialed: make(chan struct{})}
	opts := mqtt.Options{
		URL: cfg.URL, ClientID: cfg.ClientID, Username: cfg.Username, Password: cfg.Password, TLS: tlsCfg,
		// Publishing only: nothing is worth keeping at the cloud broker between sessions.
		CleanSession: true,
		Logger:       log,
	}
	go func() {
		defer close(l.dialed)
		c, err := mqtt.Connect(dialCtx, opts)
		if err != nil {
			if dialCtx.Err() == nil {
				log.Error("upstream sync is off: connecting to the upstream broker failed", "err", err)
			}
			return
		}
		l.client.Store(c)
	}()
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
	c := l.client.Load()
	return c != nil && c.Connected()
}

// intakeBlocked reports that the outbox is full under policy block: the router must
// stop taking QoS 0 messages and stop acknowledging QoS 1 ones until it clears.
func (l *upstreamLink) intakeBlocked() bool { return l.blocked.Load() }

// Connected and Publish make the link the actor's upstreamConn.
func (l *upstreamLink) Connected() bool { return l.connected() }

func (l *upstreamLink) Publish(topic string, qos byte, payload []byte, done func(error)) {
	c := l.client.Load()
	if c == nil {
		done(errUpstreamDown)
		return
	}
	c.Publish(topic, qos, payload, done)
}

// close stops dialling and disconnects, giving in-flight publishes a second.
func (l *upstreamLink) close() {
	l.cancel()
	<-l.dialed
	if c := l.client.Load(); c != nil {
		c.Close(time.Second)
	}
	l.metrics.UpstreamUp.Set(0)
}
