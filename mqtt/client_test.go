package mqtt_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
)

const waitFor = 15 * time.Second

// inbox collects what a client's handler receives.
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

func (in inbox) none(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case m := <-in:
		t.Fatalf("unexpected message on %s: %q", m.Topic, m.Payload)
	case <-time.After(d):
	}
}

// testLogger logs to t until the test ends; paho goroutines may still log
// after that, which t.Log does not allow.
func testLogger(t testing.TB) *slog.Logger {
	w := &tWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.ended = true
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct {
	t     testing.TB
	mu    sync.Mutex
	ended bool
}

func (w *tWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ended {
		w.t.Log(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

func connect(t *testing.T, o mqtt.Options) *mqtt.Client {
	t.Helper()
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	c, err := mqtt.Connect(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(time.Second) })
	return c
}

// publish publishes and waits for the publish to complete.
func publish(t *testing.T, c *mqtt.Client, topic string, qos byte, payload string) {
	t.Helper()
	done := make(chan error, 1)
	c.Publish(topic, qos, []byte(payload), func(err error) { done <- err })
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitFor):
		t.Fatalf("publish to %s not completed within %s", topic, waitFor)
	}
}

func TestClientDeliversQoS0AndQoS1WithManualAck(t *testing.T) {
	b := broker.Start(t)
	in := make(inbox, 16)
	connect(t, mqtt.Options{URL: b.URL(), ClientID: "sub", ManualAck: true, Handler: in.handler,
		Subscriptions: []mqtt.Subscription{{Filter: "sensors/+/data", QoS: 1}}})
	pub := connect(t, mqtt.Options{URL: b.URL(), ClientID: "pub", CleanSession: true})

	for _, qos := range []byte{0, 1} {
		payload := fmt.Sprintf(`{"qos":%d}`, qos)
		publish(t, pub, "sensors/s-1/data", qos, payload)
		m := in.next(t)
		if m.Topic != "sensors/s-1/data" || string(m.Payload) != payload || m.QoS != qos || m.Duplicate {
			t.Fatalf("got %+v, want %s with QoS %d", m, payload, qos)
		}
		m.Ack()
	}
}

func TestUnackedMessagesAreRedeliveredToAPersistentSession(t *testing.T) {
	b := broker.Start(t)
	opts := func(in inbox) mqtt.Options {
		return mqtt.Options{URL: b.URL(), ClientID: "edged-test", ManualAck: true, Handler: in.handler,
			Subscriptions: []mqtt.Subscription{{Filter: "t/#", QoS: 1}}, Logger: testLogger(t)}
	}
	first := make(inbox, 16)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	sub, err := mqtt.Connect(ctx, opts(first))
	if err != nil {
		t.Fatal(err)
	}
	pub := connect(t, mqtt.Options{URL: b.URL(), CleanSession: true})
	publish(t, pub, "t/a", 1, "one")
	publish(t, pub, "t/a", 1, "two")
	if m := first.next(t); string(m.Payload) != "one" {
		t.Fatalf("got %q, want one", m.Payload)
	}
	m := first.next(t)
	m.Ack() // "two" is acked, "one" never is
	sub.Close(time.Second)

	second := make(inbox, 16)
	connect(t, opts(second))
	m = second.next(t)
	if string(m.Payload) != "one" || !m.Duplicate {
		t.Fatalf("got %q (duplicate %v), want the unacked one redelivered as a duplicate", m.Payload, m.Duplicate)
	}
	m.Ack()
	second.none(t, 200*time.Millisecond)
}

func TestConnectNamesTheURLWhenNoBrokerAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	_, err = mqtt.Connect(ctx, mqtt.Options{URL: "mqtt://" + addr, CleanSession: true, Logger: testLogger(t)})
	want := "connecting to mqtt://" + addr + ": context deadline exceeded (last attempt: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error = %v, want it to start with %q and say connection refused", err, want)
	}
}

func TestConnectRejectsOptionsThatCannotWork(t *testing.T) {
	tests := []struct {
		name string
		o    mqtt.Options
		want string
	}{
		{"AnUnknownScheme", mqtt.Options{URL: "http://localhost:1883", CleanSession: true},
			`broker URL http://localhost:1883: unknown scheme "http": use tcp, mqtt, mqtts, ssl, tls, ws or wss`},
		{"AURLWithoutHost", mqtt.Options{URL: "tcp://:1883", CleanSession: true},
			`broker URL tcp://:1883 has no host`},
		{"APersistentSessionWithoutClientID", mqtt.Options{URL: "tcp://localhost"},
			`connecting to tcp://localhost:1883: a persistent session (clean session off) needs a fixed client id`},
		{"SubscriptionsWithoutHandler", mqtt.Options{URL: "tls://localhost", CleanSession: true, Subscriptions: []mqtt.Subscription{{Filter: "#"}}},
			`connecting to tls://localhost:8883: subscriptions need a message handler`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mqtt.Connect(context.Background(), tt.o)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestQoS0PublishWhileDisconnectedFailsAtOnce(t *testing.T) {
	b := broker.Start(t)
	c := connect(t, mqtt.Options{URL: b.URL(), CleanSession: true})
	b.Stop()
	deadline := time.Now().Add(waitFor)
	for c.Connected() {
		if time.Now().After(deadline) {
			t.Fatal("client still connected after the broker stopped")
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
	done := make(chan error, 1)
	c.Publish("t", 0, []byte("x"), func(err error) { done <- err })
	if err := <-done; err == nil || !strings.Contains(err.Error(), "not connected") {
		t.Fatalf("error = %v, want not connected", err)
	}
}

func TestPublishCallbacksEndWhenTheClientCloses(t *testing.T) {
	b := broker.Start(t)
	c := connect(t, mqtt.Options{URL: b.URL(), CleanSession: true})
	b.Stop()
	// A QoS 1 publish while reconnecting waits for the broker...
	done := make(chan error, 1)
	c.Publish("t", 1, []byte("x"), func(err error) { done <- err })
	c.Close(0)
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("publish reported success with the broker down")
		}
	case <-time.After(waitFor):
		t.Fatal("publish callback not called after Close")
	}
}

func TestPublishRefusesAnInvalidTopicAndKeepsTheConnection(t *testing.T) {
	b := broker.Start(t)
	in := make(inbox, 4)
	connect(t, mqtt.Options{URL: b.URL(), ClientID: "sub", Handler: in.handler, CleanSession: true,
		Subscriptions: []mqtt.Subscription{{Filter: "out/#", QoS: 1}}})
	pub := connect(t, mqtt.Options{URL: b.URL(), ClientID: "pub", CleanSession: true})
	for _, topic := range []string{"out/a#b", "out/+", "out/a\x00b", ""} {
		done := make(chan error, 1)
		pub.Publish(topic, 1, []byte("x"), func(err error) { done <- err })
		if err := <-done; !errors.Is(err, mqtt.ErrInvalidTopic) {
			t.Fatalf("publishing to %q: error = %v, want ErrInvalidTopic", topic, err)
		}
	}
	publish(t, pub, "out/ok", 1, "y")
	if m := in.next(t); m.Topic != "out/ok" {
		t.Fatalf("got a message on %q, want out/ok", m.Topic)
	}
}

// An idle client pings within its keepalive and stays connected: the patched paho
// keeps the times of the last packet sent and received as monotonic nanoseconds.
func TestAnIdleClientPingsAndStaysConnected(t *testing.T) {
	b := broker.Start(t)
	g := broker.StartGate(t, fmt.Sprintf("127.0.0.1:%d", b.Port()))
	lost := make(chan error, 1)
	connect(t, mqtt.Options{URL: g.URL(), CleanSession: true, KeepAlive: time.Second,
		OnConnectionLost: func(err error) { lost <- err }})
	waitUntil(t, "two pings from a client idle with a 1 s keepalive", func() bool { return g.Pings() >= 2 })
	select {
	case err := <-lost:
		t.Fatalf("the idle client lost its connection: %v", err)
	default:
	}
}

// After a reconnect paho resends the QoS 1 publishes the broker has not confirmed
// and completes their old tokens without an error, before any PUBACK. A publish is
// done only when the broker confirmed it, whatever the session kind (edged's local
// client keeps its session, the upstream link starts clean).
func TestPublishIsDoneOnlyWhenTheBrokerConfirmsIt(t *testing.T) {
	for _, clean := range []bool{false, true} {
		t.Run(fmt.Sprintf("clean session %v", clean), func(t *testing.T) {
			b := broker.Start(t)
			g := broker.StartGate(t, fmt.Sprintf("127.0.0.1:%d", b.Port()))
			sub := make(inbox, 100)
			connect(t, mqtt.Options{
				URL: b.URL(), ClientID: "sub", CleanSession: false,
				Subscriptions: []mqtt.Subscription{{Filter: "t", QoS: 1}}, Handler: sub.handler,
			})
			c := connect(t, mqtt.Options{URL: g.URL(), ClientID: "gated", CleanSession: clean})

			const n = 20
			g.Hold() // the publishes go out, and are lost
			var opened atomic.Bool
			var early atomic.Int64
			done := make(chan error, n)
			for i := range n {
				c.Publish("t", 1, fmt.Appendf(nil, "m%d", i), func(err error) {
					if err == nil && !opened.Load() {
						early.Add(1)
					}
					done <- err
				})
			}
			waitUntil(t, "the publishes lost on the way", func() bool { p, _ := g.Lost(); return p >= n })
			g.Cut()
			waitUntil(t, "the publishes resent after the reconnect and lost again", func() bool { _, r := g.Lost(); return r >= n })
			opened.Store(true)
			g.Open()
			g.Cut()
			for range n {
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("publish failed: %v", err)
					}
				case <-time.After(waitFor):
					t.Fatalf("publishes not confirmed within %s of the gate opening", waitFor)
				}
			}
			if e := early.Load(); e > 0 {
				t.Errorf("%d of %d publishes reported done while the broker had not received them", e, n)
			}
			got := map[string]bool{}
			for len(got) < n {
				got[string(sub.next(t).Payload)] = true
			}
		})
	}
}

// waitUntil polls cond with a deadline.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", waitFor, what)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
}
