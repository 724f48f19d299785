package uplink

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fastjson"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/natsjs"
)

const (
	// natsMaxPending bounds the records published to JetStream and not yet
	// acknowledged, over all devices; a batch past it waits for room.
	natsMaxPending = 1024
	// natsAckTimeout fails a record whose ack is lost (a server restart between
	// storing it and answering) before the actor's own upstreamAckTimeout.
	natsAckTimeout = 30 * time.Second
	// natsSetupRetry is the pause between attempts to create the stream.
	natsSetupRetry = 2 * time.Second
)

// natsUplink is the JetStream transport. Subjects mirror the MQTT topics level for
// token: {prefix}.{device}.late.{stream…} and {prefix}.{device}.results.{window},
// every level escaped to one token (natsjs.EscapeToken), so a stream topic
// "sensors/s-1/data" becomes the tokens sensors.s-1.data.
//
// One record per message, not a batch per message: JetStream deduplicates a message
// by its Nats-Msg-Id, so only a message holding exactly one record can carry that
// record's id. A batch would need one id for many records, and a batch formed again
// differently (another max_records, a partial batch that filled up meanwhile)
// would not be recognised; consumers also get one record to upsert per message.
// Publishing is asynchronous, so a batch of records costs one round trip, not one
// per record; natsMaxPending bounds what is in flight.
type natsUplink struct {
	pub      *natsjs.Publisher
	prefix   string // escaped tokens joined by '.'
	idPrefix string // topic_prefix + "/": makes message ids unique in a fleet's stream
	dups     prometheus.Counter
	ready    atomic.Bool // the stream was set up or checked once
	cancel   context.CancelFunc
	setup    chan struct{} // closed when the setup goroutine returned
}

func newNATSUplink(ctx context.Context, cfg configs.Upstream, tlsCfg *tls.Config, log *slog.Logger, m *Metrics) (*natsUplink, error) {
	pub, err := natsjs.Connect(natsjs.Options{
		URL: cfg.URL, Name: cfg.ClientID, Username: cfg.Username, Password: cfg.Password,
		Token: cfg.NATS.Token, NKeySeedFile: cfg.NATS.NKeySeedFile, CredsFile: cfg.NATS.CredsFile, TLS: tlsCfg,
		MaxPending: natsMaxPending, AckTimeout: natsAckTimeout, Logger: log,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	t := &natsUplink{pub: pub, prefix: natsjs.Subject(strings.Split(cfg.TopicPrefix, "/")...), idPrefix: cfg.TopicPrefix + "/",
		dups: m.Duplicates, cancel: cancel, setup: make(chan struct{})}
	go func() {
		defer close(t.setup)
		t.setUp(ctx, cfg.NATS.JetStream, log)
	}()
	return t, nil
}

// setUp creates the stream (create_stream) or checks that one takes in the subjects,
// once connected. Publishing starts after the first attempt either way: a stream
// created later by an operator is used as soon as it exists.
func (t *natsUplink) setUp(ctx context.Context, js configs.JetStream, log *slog.Logger) {
	subject := t.prefix + ".>"
	for attempt := 0; ; attempt++ {
		if t.pub.WaitConnected(ctx) != nil {
			return
		}
		opCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		var err error
		if js.CreateStream {
			err = t.pub.EnsureStream(opCtx, natsjs.StreamConfig{Name: js.Stream, Subject: subject,
				Memory: js.Storage == "memory", Duplicates: js.DuplicateWindow})
		} else {
			var name string
			var window time.Duration
			if name, window, err = t.pub.StreamFor(opCtx, subject); err == nil && window < js.DuplicateWindow {
				log.Warn("the JetStream stream forgets message ids sooner than upstream.jetstream.duplicate_window: a record sent again after that arrives twice",
					"stream", name, "duplicate_window", window, "want", js.DuplicateWindow)
			}
		}
		cancel()
		t.ready.Store(true)
		switch {
		case err == nil:
			return
		case !js.CreateStream:
			log.Error("records wait in the outbox until a JetStream stream takes in their subjects: create one, or set upstream.jetstream.create_stream", "err", err)
			return
		case attempt == 0:
			log.Error("setting up the JetStream stream failed; retrying", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(natsSetupRetry):
		}
	}
}

func (t *natsUplink) Connected() bool { return t.ready.Load() && t.pub.Connected() }

func (t *natsUplink) publish(b upstreamBatch, done func(error)) {
	subject := t.subject(b.device, b.topic)
	msgs := make([]natsjs.Msg, len(b.entries))
	for i, e := range b.entries {
		msgs[i] = natsjs.Msg{Subject: subject, ID: t.msgID(b.device, b.topic, e), Data: outbox.WithID(b.device, e.Seq, e.Payload)}
	}
	t.pub.PublishBatch(msgs, func(dups int, err error) {
		t.dups.Add(float64(dups))
		if big, ok := errors.AsType[*natsjs.TooLargeError](err); ok {
			err = &refusal{acked: big.Index, refused: 1, err: err}
		}
		done(err)
	})
}

// subject is {prefix}.{device}.{topic levels}, each escaped to one token.
func (t *natsUplink) subject(device, topic string) string {
	return t.prefix + "." + natsjs.EscapeToken(device) + "." + natsjs.Subject(strings.Split(topic, "/")...)
}

func (t *natsUplink) close() {
	t.cancel()
	<-t.setup
	t.pub.Close()
}

// msgID is a record's Nats-Msg-Id: its idempotency key after the topic prefix
// ("edged/gw-1/boiler-1042"). JetStream deduplicates across a whole stream, and two
// gateways of a fleet may well both have a device "boiler", whose records must not
// be taken for each other's duplicates.
func (t *natsUplink) msgID(device, topic string, e outbox.Entry) string {
	return t.idPrefix + upstreamKey(device, topic, e)
}

// upstreamKey is a record's idempotency key: the record id "<device>-<seq>" for a
// late record; for a result "device/window/key/start/revision", which a result keeps
// even when a restart emits it again under another seq.
func upstreamKey(device, topic string, e outbox.Entry) string {
	window, ok := strings.CutPrefix(topic, "results/")
	if ok {
		var p fastjson.Parser
		if v, err := p.ParseBytes(e.Payload); err == nil && v.Exists("revision") {
			return device + "/" + window + "/" + string(v.GetStringBytes("key")) + "/" +
				strconv.FormatInt(v.GetInt64("start"), 10) + "/" + strconv.FormatInt(v.GetInt64("revision"), 10)
		}
	}
	return device + "-" + strconv.FormatUint(e.Seq, 10)
}
