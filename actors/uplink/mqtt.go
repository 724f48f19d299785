package uplink

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/mqtt"
)

// mqttUplink is the MQTT transport: one QoS 1 message per batch. The mqtt.Client
// retries the first connection every second and, once connected, reconnects by itself
// (see mqtt/client.go); a publish issued before a drop is resent by the client after
// the reconnect.
type mqttUplink struct {
	prefix string
	client atomic.Pointer[mqtt.Client]
	cancel context.CancelFunc
	dialed chan struct{} // closed when the background dial returned
}

// newMQTTUplink starts dialling cfg.URL in the background.
func newMQTTUplink(ctx context.Context, cfg configs.Upstream, tlsCfg *tls.Config, log *slog.Logger) *mqttUplink {
	dialCtx, cancel := context.WithCancel(ctx)
	t := &mqttUplink{prefix: cfg.TopicPrefix, cancel: cancel, dialed: make(chan struct{})}
	opts := mqtt.Options{
		URL: cfg.URL, ClientID: cfg.ClientID, Username: cfg.Username, Password: cfg.Password, TLS: tlsCfg,
		// Publishing only: nothing is worth keeping at the cloud broker between sessions.
		CleanSession: true,
		Logger:       log,
	}
	go func() {
		defer close(t.dialed)
		c, err := mqtt.Connect(dialCtx, opts)
		if err != nil {
			if dialCtx.Err() == nil {
				log.Error("upstream sync is off: connecting to the upstream broker failed", "err", err)
			}
			return
		}
		t.client.Store(c)
	}()
	return t
}

func (t *mqttUplink) Connected() bool {
	c := t.client.Load()
	return c != nil && c.Connected()
}

func (t *mqttUplink) publish(b upstreamBatch, done func(error)) {
	c := t.client.Load()
	if c == nil {
		done(errUpstreamDown)
		return
	}
	c.Publish(upstreamTopic(t.prefix, b.device, b.topic), 1, upstreamPayload(b.device, b.entries), func(err error) {
		done(refusedTopic(err, len(b.entries)))
	})
}

// refusedTopic makes the client's refusal of an invalid topic the refusal of every
// record of the batch: they share the topic and the one message.
func refusedTopic(err error, records int) error {
	if errors.Is(err, mqtt.ErrInvalidTopic) {
		return &refusal{refused: records, err: err}
	}
	return err
}

// close stops dialling and disconnects, giving in-flight publishes a second.
func (t *mqttUplink) close() {
	t.cancel()
	<-t.dialed
	if c := t.client.Load(); c != nil {
		c.Close(time.Second)
	}
}

// upstreamPayload is what the cloud receives for a batch: the record itself when
// there is one, a JSON array of records when there are several. Each record gets
// `"id":"<device>-<seq>"` in front, unique per device across restarts.
func upstreamPayload(device string, entries []outbox.Entry) []byte {
	if len(entries) == 1 {
		return outbox.WithID(device, entries[0].Seq, entries[0].Payload)
	}
	size := 2
	for _, e := range entries {
		size += len(e.Payload) + len(device) + 32
	}
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, outbox.WithID(device, e.Seq, e.Payload)...)
	}
	return append(b, ']')
}

// upstreamTopic is where a queue's entry goes: {prefix}/{device}/{late/<stream> | results/<window>}.
func upstreamTopic(prefix, device, rel string) string {
	if prefix == "" {
		return device + "/" + rel
	}
	return prefix + "/" + device + "/" + rel
}
