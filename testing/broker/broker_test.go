package broker_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
)

const waitFor = 20 * time.Second

type inbox chan *mqtt.Message

func (in inbox) handler(m *mqtt.Message) { in <- m }

func (in inbox) next(t *testing.T) *mqtt.Message {
	t.Helper()
	select {
	case m := <-in:
		return m
	case <-time.After(waitFor):
		t.Fatalf("no message within %s", waitFor)
		return nil
	}
}

func connect(t *testing.T, o mqtt.Options) *mqtt.Client {
	t.Helper()
	o.Logger = slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	c, err := mqtt.Connect(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(time.Second) })
	return c
}

func publish(t *testing.T, c *mqtt.Client, topic string, payload string) {
	t.Helper()
	done := make(chan error, 1)
	c.Publish(topic, 1, []byte(payload), func(err error) { done <- err })
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitFor):
		t.Fatalf("publish to %s not acknowledged within %s", topic, waitFor)
	}
}

func TestGeneratedConfigStatesTheNoLossSettings(t *testing.T) {
	b := broker.Start(t, broker.WithConfig("log_type error"))
	conf, err := os.ReadFile(b.Dir() + "/mosquitto.conf")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range append(broker.NoLossConfig, fmt.Sprintf("listener %d 127.0.0.1", b.Port()), "log_type error") {
		if !strings.Contains(string(conf), line+"\n") {
			t.Errorf("mosquitto.conf lacks %q:\n%s", line, conf)
		}
	}
	if b.URL() != fmt.Sprintf("tcp://127.0.0.1:%d", b.Port()) {
		t.Errorf("URL() = %q", b.URL())
	}
}

// A clean-session client loses its subscriptions with the broker's restart:
// receiving afterwards proves it reconnected and resubscribed by itself.
func TestClientReconnectsAndResubscribesAcrossARestart(t *testing.T) {
	b := broker.Start(t)
	in := make(inbox, 16)
	reconnected := make(chan struct{}, 4)
	connect(t, mqtt.Options{URL: b.URL(), CleanSession: true, Handler: in.handler,
		Subscriptions: []mqtt.Subscription{{Filter: "sensors/+/data", QoS: 1}},
		OnConnect:     func() { reconnected <- struct{}{} }})
	<-reconnected // the first connection
	pub := connect(t, mqtt.Options{URL: b.URL(), CleanSession: true})

	publish(t, pub, "sensors/s-1/data", "before")
	if m := in.next(t); string(m.Payload) != "before" {
		t.Fatalf("got %q, want before", m.Payload)
	}
	b.Restart()
	select {
	case <-reconnected:
	case <-time.After(waitFor):
		t.Fatalf("subscriber not reconnected within %s", waitFor)
	}
	publish(t, pub, "sensors/s-1/data", "after")
	if m := in.next(t); string(m.Payload) != "after" {
		t.Fatalf("got %q, want after", m.Payload)
	}
}

// What the no-loss promise needs from the broker: a persistent session's
// queued QoS 1 messages survive a broker restart, however many there are.
func TestQueuedMessagesOfAPersistentSessionSurviveARestart(t *testing.T) {
	const n = 1500 // more than Mosquitto's default max_queued_messages (1000)
	b := broker.Start(t)
	in := make(inbox, n)
	opts := mqtt.Options{URL: b.URL(), ClientID: "edged-test", ManualAck: true, Handler: in.handler,
		Subscriptions: []mqtt.Subscription{{Filter: "q/#", QoS: 1}}}
	sub := connect(t, opts)
	sub.Close(time.Second)

	pub := connect(t, mqtt.Options{URL: b.URL(), CleanSession: true})
	for i := range n {
		publish(t, pub, "q/a", fmt.Sprint(i))
	}
	b.Restart()
	connect(t, opts)
	for i := range n {
		m := in.next(t)
		if string(m.Payload) != fmt.Sprint(i) {
			t.Fatalf("message %d is %q", i, m.Payload)
		}
		m.Ack()
	}
}

func TestAKilledBrokerCanBeRestarted(t *testing.T) {
	b := broker.Start(t)
	port := b.Port()
	b.Kill()
	b.Restart()
	if b.Port() != port {
		t.Fatalf("port changed from %d to %d", port, b.Port())
	}
	connect(t, mqtt.Options{URL: b.URL(), CleanSession: true})
}

// Save writes what the broker confirmed to its file, so a kill right after it loses
// none of it: here the broker would not save on its own for an hour.
func TestAKillAfterSaveLosesNothingTheBrokerConfirmed(t *testing.T) {
	const n = 100
	b := broker.Start(t, broker.WithConfig("autosave_interval 3600"))
	in := make(inbox, n)
	opts := mqtt.Options{URL: b.URL(), ClientID: "away", ManualAck: true, Handler: in.handler,
		Subscriptions: []mqtt.Subscription{{Filter: "q/#", QoS: 1}}}
	connect(t, opts).Close(time.Second)
	pub := connect(t, mqtt.Options{URL: b.URL(), CleanSession: true})
	for i := range n {
		publish(t, pub, "q/a", fmt.Sprint(i))
	}
	b.Save()
	b.Kill()
	b.Restart()
	connect(t, opts)
	for i := range n {
		if m := in.next(t); string(m.Payload) != fmt.Sprint(i) {
			t.Fatalf("message %d is %q", i, m.Payload)
		}
	}
}
