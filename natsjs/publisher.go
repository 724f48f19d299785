package natsjs

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/edged/edged/internal/redact"
)

const (
	// firstReconnect and maxReconnect: the pause between attempts to reach the server
	// starts at a second and doubles up to ten, plus up to reconnectJitter at random
	// so a fleet does not retry in step after a restart (as edged's MQTT client).
	firstReconnect  = time.Second
	maxReconnect    = 10 * time.Second
	reconnectJitter = time.Second
)

// Options say where and how to connect. Only one way to authenticate may be set.
type Options struct {
	URL                string // nats://host:port, or a comma-separated list of a cluster's
	Name               string // the connection name the server shows
	Username, Password string
	Token              string
	NKeySeedFile       string
	CredsFile          string
	TLS                *tls.Config // nil: plain, unless the server requires TLS
	// MaxPending bounds the messages published and not yet acknowledged; a batch
	// waits for room rather than growing the client's memory.
	MaxPending int
	// AckTimeout fails a message whose ack did not come in time (a lost reply).
	AckTimeout time.Duration
	Logger     *slog.Logger
}

// Msg is one message to publish: its subject, its message id (JetStream drops a
// message whose id it saw within the stream's duplicate window) and its body.
type Msg struct {
	Subject, ID string
	Data        []byte
}

// Publisher is a connection to a NATS server with JetStream. It reconnects by
// itself for as long as it is open.
type Publisher struct {
	nc         *nats.Conn
	js         jetstream.JetStream
	ackTimeout time.Duration
	log        *slog.Logger
	closed     chan struct{} // closed by Close: batches waiting for acks give up
}

// Connect starts connecting and returns at once: when the server is not there, the
// publisher keeps trying in the background (Connected reports false meanwhile).
func Connect(o Options) (*Publisher, error) {
	log := o.Logger
	opts := []nats.Option{
		nats.Name(o.Name),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.CustomReconnectDelay(func(attempts int) time.Duration {
			return min(firstReconnect<<min(max(attempts-1, 0), 4), maxReconnect) + rand.N(reconnectJitter)
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			log.Warn("nats connection lost; reconnecting", "err", err)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("nats connection restored", "server", nc.ConnectedUrlRedacted())
		}),
		nats.ConnectHandler(func(nc *nats.Conn) {
			log.Info("connected to nats", "server", nc.ConnectedUrlRedacted())
		}),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			log.Warn("nats reported an error", "err", err)
		}),
	}
	switch {
	case o.Username != "" || o.Password != "":
		opts = append(opts, nats.UserInfo(o.Username, o.Password))
	case o.Token != "":
		opts = append(opts, nats.Token(o.Token))
	case o.NKeySeedFile != "":
		opt, err := nats.NkeyOptionFromSeed(o.NKeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("reading the nkey seed %s: %w", o.NKeySeedFile, err)
		}
		opts = append(opts, opt)
	case o.CredsFile != "":
		opts = append(opts, nats.UserCredentials(o.CredsFile))
	}
	if o.TLS != nil {
		opts = append(opts, nats.Secure(o.TLS))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", redactList(o.URL), err)
	}
	js, err := jetstream.New(nc,
		jetstream.WithPublishAsyncMaxPending(o.MaxPending),
		jetstream.WithPublishAsyncTimeout(o.AckTimeout))
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &Publisher{nc: nc, js: js, ackTimeout: o.AckTimeout, log: log, closed: make(chan struct{})}, nil
}

// Connected reports whether the connection is up right now.
func (p *Publisher) Connected() bool { return p.nc.IsConnected() }

// PublishBatch publishes msgs in order without waiting, then calls done once from
// another goroutine: with the number of messages the server reported as
// duplicates (already stored, so dropped) after every message was acknowledged, or
// with the first error. Messages before a failed one may have been stored: the
// caller sends the batch again with the same ids.
//
// A message whose subject no stream takes in fails with an error that names the
// subject. A message the server refuses for its size fails with a *TooLargeError:
// the messages before it were acknowledged.
func (p *Publisher) PublishBatch(msgs []Msg, done func(duplicates int, err error)) {
	go func() { done(p.publish(msgs)) }()
}

func (p *Publisher) publish(msgs []Msg) (int, error) {
	futures := make([]jetstream.PubAckFuture, 0, len(msgs))
	for i, m := range msgs {
		nm := &nats.Msg{Subject: m.Subject, Data: m.Data, Header: nats.Header{}}
		nm.Header.Set(jetstream.MsgIDHeader, m.ID)
		// Past MaxPending this waits for acks to make room, up to the ack timeout.
		f, err := p.js.PublishMsgAsync(nm, jetstream.WithStallWait(p.ackTimeout))
		if errors.Is(err, nats.ErrMaxPayload) {
			// The client refuses it before sending; the ones before it are out.
			dups, err := p.await(msgs, futures)
			if err == nil {
				err = &TooLargeError{Index: i, Subject: m.Subject, Size: len(m.Data), Err: fmt.Errorf("the server's max_payload is %d bytes: %w", p.nc.MaxPayload(), nats.ErrMaxPayload)}
			}
			return dups, err
		}
		if err != nil {
			return 0, fmt.Errorf("publishing to %s: %w", m.Subject, err)
		}
		futures = append(futures, f)
	}
	return p.await(msgs, futures)
}

// await waits for the acks of futures, those of the first len(futures) msgs.
func (p *Publisher) await(msgs []Msg, futures []jetstream.PubAckFuture) (int, error) {
	dups := 0
	for i, f := range futures {
		select {
		case ack := <-f.Ok():
			if ack.Duplicate {
				dups++
			}
		case <-p.closed:
			return dups, ErrClosed
		case err := <-f.Err():
			var api *jetstream.APIError
			switch {
			case errors.Is(err, jetstream.ErrNoStreamResponse):
				return dups, fmt.Errorf("no JetStream stream takes in subject %s: %w", msgs[i].Subject, err)
			case errors.As(err, &api) && api.ErrorCode == jetstream.JSErrCodeStreamMessageExceedsMaximum:
				return dups, &TooLargeError{Index: i, Subject: msgs[i].Subject, Size: len(msgs[i].Data), Err: fmt.Errorf("the stream's max_msg_size: %w", err)}
			}
			return dups, fmt.Errorf("publishing to %s: %w", msgs[i].Subject, err)
		}
	}
	return dups, nil
}

// TooLargeError is a message the server refuses for its size however often it is
// sent: over the server's max_payload, or the max_msg_size of the stream that takes
// in its subject. The messages of its batch before it were acknowledged; those after
// it may not have been.
type TooLargeError struct {
	Index   int // in the batch
	Subject string
	Size    int // of the message's body, bytes
	Err     error
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("a message of %d bytes to %s is larger than the server takes (%v)", e.Size, e.Subject, e.Err)
}

func (e *TooLargeError) Unwrap() error { return e.Err }

// ErrClosed is what a batch still waiting for acks gets when the publisher closes.
var ErrClosed = errors.New("the NATS publisher was closed")

// Close disconnects and drains nothing: what is not acknowledged is sent again by
// the caller. Call it once.
func (p *Publisher) Close() {
	close(p.closed)
	p.nc.Close()
}

// WaitConnected returns when the connection is up, or ctx's error.
func (p *Publisher) WaitConnected(ctx context.Context) error {
	ch := p.nc.StatusChanged(nats.CONNECTED)
	defer p.nc.RemoveStatusListener(ch)
	if p.nc.IsConnected() {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
		return nil
	}
}

// redactList hides the userinfo of each URL of a comma-separated server list,
// as edged's logs never show a password.
func redactList(s string) string {
	parts := strings.Split(s, ",")
	for i, raw := range parts {
		parts[i] = redact.URL(raw)
	}
	return strings.Join(parts, ",")
}
