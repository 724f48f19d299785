package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/actors/uplink"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/persist"
)

// Daemon is `edged run`: the topology fed by a live MQTT subscription, driven by the
// wall clock, with metrics and health over HTTP.
type Daemon struct {
	cfg      *configs.Daemon
	log      *slog.Logger
	metrics  *Metrics
	store    *persist.Store
	embedded *mqtt.Embedded
	broker   string // the broker's URL without credentials
	client   *mqtt.Client
	topo     *topology
	http     *http.Server
	httpAddr string
	upstream *uplink.Link
	inbounds inboundPool     // the messages intake routes
	status   *status.Sampler // nil without http.listen
	reload   *reloadState
	applyMu  sync.Mutex // one reload at a time, and none once stopping
	fleetMu  sync.Mutex
	fleet    *fleetState // nil without fleet.kv

	clock func() int64 // processing time (ms) for /explain; nil: the wall clock

	received atomic.Uint64 // messages the client handed over (GovernProcs)
	busy     chan struct{} // a signal every procsBurst messages, for GovernProcs on one P

	stopTicks chan struct{}
	ticksOff  sync.Once
	ticks     sync.WaitGroup
	stopOnce  sync.Once
	stopErr   error
}

// Start opens the state, restores every device, connects to the broker and starts
// taking messages. The returned Daemon runs until Stop.
func Start(ctx context.Context, cfg *configs.Daemon, log *slog.Logger, opts ...StartOption) (_ *Daemon, err error) {
	// Not the named result: `return nil, err` would make the cleanup close a nil Daemon.
	d := &Daemon{cfg: cfg, log: log, metrics: MetricsFor(cfg.Metrics), stopTicks: make(chan struct{}), busy: make(chan struct{}, 1)}
	for _, o := range opts {
		o(d)
	}
	d.reload = newReloadState(d.metrics.Registry, len(cfg.Devices))
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	dur, err := persist.ParseDurability(cfg.Durability)
	if err != nil {
		return nil, err
	}
	applyMemoryBudget(cfg.Limits.Memory, log)
	d.store, err = persist.Open(persist.Options{
		Dir: cfg.DataDir, Durability: dur, DedupTTL: cfg.DedupTTL, Logger: log,
		MinFreeDisk: uint64(cfg.Limits.MinFreeDisk), Memory: cfg.Limits.Memory,
	})
	if err != nil {
		return nil, err
	}
	brokerURL := cfg.Broker.URL
	if cfg.Broker.Embedded() {
		d.embedded, err = mqtt.StartEmbedded(cfg.Broker.Listen, filepath.Join(cfg.DataDir, "broker"), log)
		if err != nil {
			return nil, fmt.Errorf("starting the embedded broker on %s: %w", cfg.Broker.Listen, err)
		}
		brokerURL = d.embedded.URL()
	}
	d.broker = mqtt.RedactURL(brokerURL)
	pub := &lazyPublisher{}
	var late func(*env) *actor.PID
	if cfg.Upstream.Enabled() {
		d.upstream, err = uplink.Start(ctx, cfg.Upstream, log, d.metrics.Uplink)
		if err != nil {
			return nil, err
		}
		late = func(e *env) *actor.PID {
			e.intakeBlocked, e.uplinkBusy = d.upstream.IntakeBlocked, d.upstream.Busy
			return d.upstream.Spawn(e.system.Root, e.props, e.store, e.log, func() { e.ticks.need(math.MinInt64) })
		}
	}
	d.topo, err = buildTopology(cfg, d.store, d.metrics, log, nil, pub, late)
	if err != nil {
		return nil, err
	}
	if err := d.serveHTTP(); err != nil {
		return nil, err
	}
	// Commits run before the connection is up: a persistent session's backlog
	// arrives before the SUBACK, and intake holds the client's reader once
	// limits.max_inflight messages wait for a commit (results wait for the client).
	d.ticks.Add(1)
	go d.tickLoop()
	if d.status != nil {
		d.ticks.Add(1)
		go d.statusLoop(d.status)
	}
	d.client, err = d.connect(ctx, brokerURL)
	if err != nil {
		return nil, err
	}
	pub.client.Store(d.client)
	log.Info("edged running", "devices", len(cfg.Devices), "broker", d.broker, "data_dir", cfg.DataDir, "http", d.httpAddr)
	return d, nil
}

func (d *Daemon) connect(ctx context.Context, url string) (*mqtt.Client, error) {
	tlsCfg, err := d.cfg.Broker.TLS.Config()
	if err != nil {
		return nil, err
	}
	subs := subscriptions(d.cfg.Devices)
	persistent := persistentSession(d.cfg.Devices)
	maxPayload := d.cfg.Limits.MaxPayload
	return mqtt.Connect(ctx, mqtt.Options{
		URL: url, ClientID: d.cfg.Broker.ClientID, Username: d.cfg.Broker.Username, Password: d.cfg.Broker.Password,
		TLS: tlsCfg, KeepAlive: d.cfg.Broker.KeepAlive,
		// A persistent session makes the broker keep and redeliver unacknowledged
		// QoS 1 messages across a crash of edged.
		CleanSession:  !persistent,
		ManualAck:     true,
		Subscriptions: subs,
		Logger:        d.log,
		// The local broker is back within seconds of a restart (a package upgrade),
		// and a refused attempt on the gateway costs nothing.
		MaxReconnectInterval: localReconnectMax,
		Handler: func(m *mqtt.Message) {
			payload := m.Payload
			if maxPayload > 0 && len(payload) > maxPayload {
				payload = fmt.Appendf(nil, "payload of %d bytes exceeds limits.max_payload %d", len(payload), maxPayload)
			}
			if d.received.Add(1)%procsBurst == 0 {
				select {
				case d.busy <- struct{}{}:
				default:
				}
			}
			in := d.inbounds.get()
			in.Inbound = Inbound{Topic: m.Topic, Payload: payload, QoS: m.QoS, Duplicate: m.Duplicate, At: time.Now().UnixMilli()}
			if m.QoS > 0 {
				in.msg = m // QoS 0 has nothing to acknowledge: no visit to m, long out of the cache, after the commit
			}
			d.topo.router.route(&in.Inbound, in.put)
		},
		OnConnect:        func() { d.metrics.BrokerUp.Set(1) },
		OnConnectionLost: func(error) { d.metrics.BrokerUp.Set(0) },
	})
}

// localReconnectMax caps the pause between attempts to reach the local broker.
const localReconnectMax = time.Second

// tickEvery is the granularity of processing time inside the topology: watermark
// intervals and the commit interval are rounded up to it.
const tickEvery = 10 * time.Millisecond

func (d *Daemon) tickLoop() {
	defer d.ticks.Done()
	d.ticks.Add(1)
	go func() {
		defer d.ticks.Done()
		d.topo.ticking(d.stopTicks)
	}()
	gcEvery := time.NewTicker(5 * time.Minute)
	defer gcEvery.Stop()
	for {
		select {
		case <-d.stopTicks:
			return
		case <-gcEvery.C:
			d.store.RunGC()
		}
	}
}

// Stop stops taking messages, commits what is in flight, publishes what is committed
// and closes everything within timeout. Unacknowledged messages stay with the broker.
// Calling it again returns the first call's result.
func (d *Daemon) Stop(timeout time.Duration) error {
	d.stopOnce.Do(func() { d.stopErr = d.stop(timeout) })
	return d.stopErr
}

func (d *Daemon) stop(timeout time.Duration) error {
	deadline := time.After(timeout)
	// Closing first: a reload in progress, waiting for intake, gives up and ends;
	// later ones see closing and change nothing.
	d.topo.router.closing.Store(true)
	d.applyMu.Lock()
	defer d.applyMu.Unlock()
	d.stopTicking()
	err := d.waitAll(d.topo.flushAll(), deadline, "every device committed")
	// Results of that last commit are being published: wait for the broker's
	// answers, then commit the deliveries, or a restart would publish them twice.
	drained := make(chan struct{})
	d.topo.system.Root.Send(d.topo.env.sink, &DrainSink{Done: drained})
	if err == nil {
		err = d.waitAll([]chan struct{}{drained}, deadline, "the sink published every committed result")
	}
	if err == nil {
		err = d.waitAll(d.topo.flushAll(), deadline, "every device committed its deliveries")
	}
	if err == nil {
		d.logUnacknowledged()
	}
	d.close()
	return err
}

// logUnacknowledged says, for a stop during a stall, what the broker keeps: the
// messages of each device whose effect could not be committed.
func (d *Daemon) logUnacknowledged() {
	failing := map[string]error{}
	for _, f := range d.topo.env.commitFailures.List() {
		failing[f.Device] = f.Err
	}
	d.topo.mu.RLock()
	defer d.topo.mu.RUnlock()
	for _, dev := range d.topo.router.devices {
		id := dev.plan.device.ID
		n := dev.inflight.Load()
		if n == 0 {
			continue
		}
		attrs := []any{"device", id, "messages", n}
		if err := failing[id]; err != nil {
			attrs = append(attrs, "because", err)
		}
		d.log.Warn("stopping with messages not acknowledged: the broker redelivers them (QoS 1) at the next start", attrs...)
	}
}

func (d *Daemon) waitAll(dones []chan struct{}, deadline <-chan time.Time, what string) error {
	for _, done := range dones {
		select {
		case <-done:
		case <-deadline:
			return fmt.Errorf("shutdown timed out before %s", what)
		}
	}
	return nil
}

// stopTicking stops processing time (watermark ticks, commits) and waits for the
// last tick to end.
func (d *Daemon) stopTicking() {
	d.ticksOff.Do(func() {
		close(d.stopTicks)
		d.ticks.Wait()
	})
}

func (d *Daemon) close() {
	d.stopTicking()
	if d.client != nil {
		d.client.Close(time.Second)
	}
	if d.upstream != nil {
		d.upstream.Close()
	}
	if d.topo != nil {
		d.topo.stop()
		d.topo.system.Shutdown()
	}
	if d.http != nil {
		_ = d.http.Close()
	}
	if d.store != nil {
		if err := d.store.Close(); err != nil {
			d.log.Error("closing state", "err", err)
		}
	}
	if d.embedded != nil {
		d.embedded.Close()
	}
}

// Metrics exposes the daemon's registry (tests read counters from it).
func (d *Daemon) Metrics() *Metrics { return d.metrics }

// Restored returns a channel closed once every device the daemon started with has
// restored its saved state: from then on its messages are processed, not held.
func (d *Daemon) Restored() <-chan struct{} { return d.topo.restore.restored() }

// HTTPAddr is the address the metrics and health endpoint listens on.
func (d *Daemon) HTTPAddr() string { return d.httpAddr }

// Health reports whether the daemon is fit to take data and, if not, every cause,
// each named as precisely as edged knows it.
func (d *Daemon) Health() (ok bool, status string) {
	var problems []string
	if d.client == nil || !d.client.Connected() {
		problems = append(problems, fmt.Sprintf("broker %s disconnected: no intake until it is back", d.broker))
	}
	if d.topo.system.IsStopped() {
		problems = append(problems, "stopped")
	}
	if s := d.topo.restore.problem(); s != "" {
		problems = append(problems, s)
	}
	if dev := d.topo.stoppedDevice(); dev != "" {
		problems = append(problems, "device pipeline stopped after repeated failures: "+dev)
	}
	disk := d.store.DiskLow()
	if disk != nil {
		problems = append(problems, disk.Error()+": commits paused, intake stalled until there is room")
	}
	for _, f := range d.topo.env.commitFailures.List() {
		if disk != nil && errors.Is(f.Err, persist.ErrDiskLow) {
			continue // said above
		}
		problems = append(problems, fmt.Sprintf("state commits failing for device %s: %v: intake stalled", f.Device, f.Err))
	}
	switch {
	case len(problems) > 0:
		return false, strings.Join(problems, "; ")
	case d.upstream != nil && !d.upstream.Connected():
		return true, "ok; upstream disconnected (late data held in the outbox)"
	}
	return true, "ok"
}

func (d *Daemon) serveHTTP() error {
	if d.cfg.HTTP.Listen == "" {
		return nil
	}
	ln, err := net.Listen("tcp", d.cfg.HTTP.Listen)
	if err != nil {
		return fmt.Errorf("http.listen %s: %w", d.cfg.HTTP.Listen, err)
	}
	d.httpAddr = ln.Addr().String()
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(d.metrics.Registry, promhttp.HandlerOpts{}))
	d.status = d.newStatusSampler()
	mux.Handle("/status", d.status)
	mux.HandleFunc("/explain", d.serveExplain)
	mux.HandleFunc("/", status.ServePage)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		ok, status := d.Health()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		fmt.Fprintln(w, status)
	})
	d.http = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := d.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.log.Error("http server stopped", "err", err)
		}
	}()
	return nil
}

// lazyPublisher lets the sink exist before the client connects: the pipelines
// republish unconfirmed results while restoring, and the sink retries those.
type lazyPublisher struct{ client atomic.Pointer[mqtt.Client] }

var errNotConnected = errors.New("not connected to the broker yet")

func (p *lazyPublisher) Publish(topic string, qos byte, payload []byte, done func(error)) {
	if topic == "" { // the window publishes nothing locally
		done(nil)
		return
	}
	c := p.client.Load()
	if c == nil {
		done(errNotConnected)
		return
	}
	c.Publish(topic, qos, payload, done)
}
