package mqtt

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

const (
	defaultConnectTimeout = 10 * time.Second
	// connectRetryInterval is the first pause between attempts to reach the
	// broker at start; it doubles up to Options.MaxReconnectInterval, as paho's
	// own reconnects do later.
	connectRetryInterval        = time.Second
	defaultMaxReconnectInterval = 10 * time.Second
	// reconnectJitter bounds the random pause added before each reconnect attempt.
	reconnectJitter = time.Second
	// writeTimeout bounds how long Publish may block on a full outbound queue.
	writeTimeout = 5 * time.Second
	// resubscribeRetry is the pause before retrying a failed resubscription.
	resubscribeRetry = time.Second
)

// ErrClosed is given to publish callbacks still waiting when the client closes.
var ErrClosed = errors.New("mqtt client closed")

// Options configure a Client.
type Options struct {
	// URL of the broker: tcp://, mqtt:// (same as tcp), mqtts://, ssl://,
	// tls:// (all three TLS), ws:// or wss://, host and port.
	URL      string
	ClientID string
	Username string
	Password string
	TLS      *tls.Config // for ssl, tls and wss; nil = system defaults
	// KeepAlive is the MQTT keepalive; 0 = paho's default (30 s).
	KeepAlive time.Duration
	// CleanSession false asks the broker for a persistent session: it keeps
	// the subscriptions and queues QoS 1 messages while the client is away.
	// It needs a fixed ClientID.
	CleanSession bool
	// ManualAck: QoS 1 messages are acknowledged only by Message.Ack.
	ManualAck     bool
	Subscriptions []Subscription
	// Handler receives every message, in order, on paho's network goroutine.
	// It must return fast (hand the message to a mailbox or channel) and must
	// not call Publish or Close: while it runs, no other message is read.
	Handler func(*Message)
	// OnConnect is called after every (re)connection once the subscriptions
	// are in place: on the reconnection of a persistent session at once (the
	// broker kept them, and sends the session's backlog ahead of the SUBACK of
	// the resubscription); OnConnectionLost when a connection drops. Both run
	// on their own goroutine.
	OnConnect        func()
	OnConnectionLost func(error)
	Logger           *slog.Logger  // nil = slog.Default()
	ConnectTimeout   time.Duration // per attempt; 0 = 10 s
	// MaxReconnectInterval caps the pause between attempts to reach the broker,
	// which starts at 1 s and doubles, plus up to a second of jitter; 0 = 10 s.
	MaxReconnectInterval time.Duration
}

// Client is a connection to one MQTT broker that reconnects by itself.
// Its methods are safe for concurrent use.
type Client struct {
	o       Options
	url     string // without userinfo, for errors and logs
	log     *slog.Logger
	pc      paho.Client
	timeout time.Duration
	store   *ackStore
	pubMu   sync.Mutex // one publish at a time, so store knows whose packet it stores
	subsMu  sync.Mutex
	subs    []Subscription // what every (re)connection subscribes to; see SetSubscriptions

	subscribed chan error // result of the first subscription
	firstSub   sync.Once
	closed     chan struct{}
	closeOnce  sync.Once
	lastErr    atomic.Pointer[error]        // why the latest connection attempt failed
	failing    atomic.Bool                  // a failure has been logged since the last success
	dialed     atomic.Bool                  // the first connection is up; dial logs attempts before it
	wasUp      atomic.Bool                  // a persistent session's connection was up before (onConnect)
	conn       atomic.Pointer[bufferedConn] // the latest plain TCP connection opened
}

// Connect connects to o.URL and subscribes to o.Subscriptions. It retries
// until the first connection is up and subscribed, or ctx is done; after that
// the client reconnects with backoff on its own and resubscribes each time.
func Connect(ctx context.Context, o Options) (*Client, error) {
	u, err := parseBrokerURL(o.URL)
	if err != nil {
		return nil, err
	}
	c := &Client{
		o: o, url: RedactURL(u.String()), log: o.Logger, timeout: o.ConnectTimeout,
		subscribed: make(chan error, 1), closed: make(chan struct{}), store: newAckStore(),
		subs: slices.Clone(o.Subscriptions),
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.log = c.log.With("broker", c.url)
	if c.timeout <= 0 {
		c.timeout = defaultConnectTimeout
	}
	if c.o.MaxReconnectInterval <= 0 {
		c.o.MaxReconnectInterval = defaultMaxReconnectInterval
	}
	switch {
	case !o.CleanSession && o.ClientID == "":
		return nil, fmt.Errorf("connecting to %s: a persistent session (clean session off) needs a fixed client id", c.url)
	case len(o.Subscriptions) > 0 && o.Handler == nil:
		return nil, fmt.Errorf("connecting to %s: subscriptions need a message handler", c.url)
	}

	po := paho.NewClientOptions().
		AddBroker(u.String()).
		SetClientID(o.ClientID).
		SetUsername(o.Username).
		SetPassword(o.Password).
		SetCleanSession(o.CleanSession).
		SetOrderMatters(true).
		SetAutoAckDisabled(o.ManualAck).
		SetAutoReconnect(true).
		SetMaxReconnectInterval(c.o.MaxReconnectInterval).
		SetConnectTimeout(c.timeout).
		SetWriteTimeout(writeTimeout).
		SetResumeSubs(false).
		SetStore(c.store).
		SetOnConnectHandler(func(paho.Client) { c.onConnect() }).
		SetConnectionLostHandler(func(_ paho.Client, err error) { c.onConnectionLost(err) }).
		SetConnectionNotificationHandler(func(_ paho.Client, n paho.ConnectionNotification) { c.onNotification(n) }).
		// paho backs off exponentially (1 s doubling to MaxReconnectInterval) but every
		// gateway of a fleet would retry in step after a broker restart; a random pause
		// before each attempt spreads them out.
		SetReconnectingHandler(func(paho.Client, *paho.ClientOptions) {
			time.Sleep(rand.N(reconnectJitter))
		})
	if o.TLS != nil {
		po.SetTLSConfig(o.TLS)
	}
	if u.Scheme == "tcp" || u.Scheme == "mqtt" {
		po.SetCustomOpenConnectionFn(c.openTCP)
	}
	if o.KeepAlive > 0 {
		po.SetKeepAlive(o.KeepAlive)
	}
	if o.Handler != nil {
		// Registered before connecting: a persistent session's queued
		// messages arrive right after CONNACK and would otherwise be dropped.
		po.SetDefaultPublishHandler(c.onMessage)
	}
	c.pc = paho.NewClient(po)

	if err := c.dial(ctx); err != nil {
		c.Close(0)
		return nil, err
	}
	if len(o.Subscriptions) > 0 {
		select {
		case err := <-c.subscribed:
			if err != nil {
				c.Close(0)
				return nil, err
			}
		case <-ctx.Done():
			c.Close(0)
			return nil, c.connectErr(ctx.Err())
		}
	}
	return c, nil
}

// dial makes the first connection. A gateway often boots before its broker, so a
// broker that is not there yet is waited for, with backoff and jitter, until ctx
// ends; each attempt is logged with when the next one comes.
func (c *Client) dial(ctx context.Context) error {
	wait := connectRetryInterval
	for attempt := 1; ; attempt++ {
		tok := c.pc.Connect()
		select {
		case <-tok.Done():
		case <-ctx.Done():
			return c.connectErr(ctx.Err())
		}
		err := tok.Error()
		if err == nil {
			c.dialed.Store(true)
			return nil
		}
		c.lastErr.Store(&err)
		pause := wait + rand.N(reconnectJitter)
		c.log.Warn("mqtt broker unreachable; waiting for it", "attempt", attempt, "retry_in", pause.Round(time.Millisecond), "err", err)
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return c.connectErr(ctx.Err())
		}
		wait = min(2*wait, c.o.MaxReconnectInterval)
	}
}

// connectErr explains a first connection that did not come up in time.
func (c *Client) connectErr(cause error) error {
	if last := c.lastErr.Load(); last != nil {
		return fmt.Errorf("connecting to %s: %w (last attempt: %v)", c.url, cause, *last)
	}
	return fmt.Errorf("connecting to %s: %w", c.url, cause)
}

func (c *Client) onMessage(_ paho.Client, pm paho.Message) {
	m := &Message{Topic: pm.Topic(), Payload: pm.Payload(), QoS: pm.Qos(), Duplicate: pm.Duplicate()}
	switch conn := c.conn.Load(); {
	case !c.o.ManualAck || m.QoS == 0:
	case m.QoS == 1 && conn != nil:
		// paho hands over every message of a connection before it opens the next,
		// so conn is the one m came on.
		if conn.givenUp() && !c.o.CleanSession {
			// Lost with the connection, and so is its ack: the broker redelivers m.
			// Handing it over would only hold up the reconnect, which waits for
			// every message of the connection, behind a handler waiting for room.
			return
		}
		m.conn, m.id = conn, pm.MessageID()
	default:
		m.ack = pm.Ack // paho guards it with a sync.Once
	}
	c.o.Handler(m)
}

func (c *Client) onConnect() {
	c.lastErr.Store(nil)
	c.failing.Store(false)
	c.log.Info("mqtt connected")
	// A persistent session keeps its subscriptions at the broker, which sends what it
	// kept for the client ahead of the SUBACK of the resubscription: with a backlog,
	// the SUBACK comes only once intake took it, and the client is connected all along.
	// (A broker that lost the session has no backlog: its SUBACK comes at once.)
	resumed := !c.o.CleanSession && c.wasUp.Swap(true)
	if resumed && c.o.OnConnect != nil {
		c.o.OnConnect()
	}
	if len(c.subscriptions()) > 0 {
		for {
			err := c.subscribe()
			first := false
			c.firstSub.Do(func() { first = true; c.subscribed <- err })
			if err == nil {
				break
			}
			if first {
				return // Connect reports it and closes the client
			}
			c.log.Error("mqtt resubscribing failed; retrying", "err", err)
			select {
			case <-time.After(resubscribeRetry):
			case <-c.closed:
				return
			}
			if !c.Connected() {
				return // the next connection subscribes again
			}
		}
	}
	if !resumed && c.o.OnConnect != nil {
		c.o.OnConnect()
	}
}

// subscribe sends one SUBSCRIBE for every filter and checks the SUBACK.
func (c *Client) subscribe() error {
	return c.subscribeTo(c.subscriptions())
}

// subscribeTo sends one SUBSCRIBE for subs and checks the SUBACK.
func (c *Client) subscribeTo(subs []Subscription) error {
	filters := make(map[string]byte, len(subs))
	for _, s := range subs {
		filters[s.Filter] = max(filters[s.Filter], s.QoS)
	}
	tok := c.pc.SubscribeMultiple(filters, nil)
	if !tok.WaitTimeout(c.timeout) {
		return fmt.Errorf("subscribing on %s: no answer within %s", c.url, c.timeout)
	}
	if err := tok.Error(); err != nil {
		return fmt.Errorf("subscribing on %s: %w", c.url, err)
	}
	granted := tok.(*paho.SubscribeToken).Result()
	var refused []string
	for _, s := range subs {
		if q, ok := granted[s.Filter]; !ok || q == 0x80 {
			refused = append(refused, fmt.Sprintf("%q", s.Filter))
		} else if q < s.QoS {
			c.log.Warn("mqtt broker downgraded a subscription", "filter", s.Filter, "asked", s.QoS, "granted", q)
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("subscribing on %s: the broker refused %s", c.url, strings.Join(refused, ", "))
	}
	return nil
}

func (c *Client) onConnectionLost(err error) {
	c.log.Warn("mqtt connection lost; reconnecting", "err", err)
	if c.o.OnConnectionLost != nil {
		c.o.OnConnectionLost(err)
	}
}

func (c *Client) onNotification(n paho.ConnectionNotification) {
	f, ok := n.(paho.ConnectionNotificationFailed)
	if !ok || f.Reason == nil {
		return
	}
	err := f.Reason
	c.lastErr.Store(&err)
	if !c.dialed.Load() {
		return
	}
	if !c.failing.Swap(true) {
		c.log.Warn("mqtt connection attempt failed; retrying", "err", err)
	} else {
		c.log.Debug("mqtt connection attempt failed; retrying", "err", err)
	}
}

// Publish sends payload to topic without waiting for the broker. done (may
// be nil) is called once, on another goroutine, when the publish completed:
// for QoS 1 when the PUBACK arrived, and only then, however many reconnects
// that takes. A QoS 0 publish while disconnected fails at once; a QoS 1
// publish while reconnecting is held in memory and sent after the reconnect.
// Publish blocks only while paho's outbound queue is full, at most a few
// seconds. A topic the broker would refuse is not sent: done gets
// ErrInvalidTopic at once.
func (c *Client) Publish(topic string, qos byte, payload []byte, done func(error)) {
	if !ValidTopicName(topic) {
		if done != nil {
			done(fmt.Errorf("publishing to %.200q: %w", topic, ErrInvalidTopic))
		}
		return
	}
	if qos == 0 && !c.Connected() {
		if done != nil {
			done(fmt.Errorf("publishing to %q: not connected to %s", topic, c.url))
		}
		return
	}
	var p *pendingPub
	if qos > 0 && done != nil {
		p = &pendingPub{acked: make(chan error, 1)}
		c.pubMu.Lock()
		c.store.expect(p)
	}
	tok := c.pc.Publish(topic, qos, false, payload)
	if p != nil {
		c.store.expect(nil) // a publish refused before it was stored
		c.pubMu.Unlock()
	}
	if done == nil {
		return
	}
	go func() {
		err := c.await(tok, p)
		if err != nil {
			err = fmt.Errorf("publishing to %q on %s: %w", topic, c.url, err)
		}
		done(err)
	}()
}

// await waits until the publish of tok is confirmed (p, for QoS 1 and 2) or
// has failed.
func (c *Client) await(tok paho.Token, p *pendingPub) error {
	select {
	case <-tok.Done():
	case <-c.closed:
		return ErrClosed
	}
	if err := tok.Error(); err != nil {
		if p != nil {
			c.store.forget(p)
		}
		return err
	}
	if p == nil {
		return nil
	}
	// A token completed without an error may only mean that paho resends the
	// message after a reconnect under another token.
	select {
	case err := <-p.acked:
		return err
	case <-c.closed:
		return ErrClosed
	}
}

// Connected reports whether a connection to the broker is up right now.
func (c *Client) Connected() bool { return c.pc.IsConnectionOpen() }

// Close disconnects, giving in-flight work up to timeout to finish, and stops
// reconnecting. Unacknowledged messages of a persistent session stay queued
// at the broker.
func (c *Client) Close(timeout time.Duration) {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.pc.Disconnect(uint(timeout / time.Millisecond))
	})
}
