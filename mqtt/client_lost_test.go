package mqtt_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
)

// heldIntake is a subscriber whose handler holds the first message until released, as
// edged's intake does while limits.max_inflight messages wait for a commit: paho's
// channels fill up behind it and its reader stops reading the connection.
type heldIntake struct {
	first   chan *mqtt.Message // the held message
	release chan struct{}
	after   chan *mqtt.Message // what the handler gets once released
	lost    chan error
	c       *mqtt.Client
}

// holdIntake connects a persistent, manually acknowledging subscriber to b with a
// keepalive far longer than any wait here, so only edged's own detection can see a
// broker go, and publishes n QoS 1 messages to it: more than paho's channels hold.
func holdIntake(t *testing.T, b *broker.Mosquitto, n int) *heldIntake {
	t.Helper()
	h := &heldIntake{first: make(chan *mqtt.Message, 1), release: make(chan struct{}),
		after: make(chan *mqtt.Message, n), lost: make(chan error, 1)}
	held := false
	h.c = connect(t, mqtt.Options{URL: b.URL(), ClientID: "edged", CleanSession: false, ManualAck: true,
		KeepAlive: time.Hour, Subscriptions: []mqtt.Subscription{{Filter: "t", QoS: 1}},
		Handler: func(m *mqtt.Message) {
			if !held {
				held = true
				h.first <- m
				<-h.release
				return
			}
			h.after <- m
		},
		OnConnectionLost: func(err error) { h.lost <- err },
	})
	pub := connect(t, mqtt.Options{URL: b.URL(), ClientID: "pub", CleanSession: true})
	for i := range n {
		pub.Publish("t", 1, fmt.Append(nil, i), nil)
	}
	// The subscriber's reader is stuck behind the held message once paho's
	// channels are full.
	waitUntil(t, "the subscriber's reader held back", func() bool { return h.c.ReadsHeldBack() })
	return h
}

// awaitLost waits for the client to report its connection lost, for at most within.
func (h *heldIntake) awaitLost(t *testing.T, within time.Duration) error {
	t.Helper()
	select {
	case err := <-h.lost:
		return err
	case <-time.After(within):
		t.Fatalf("the connection loss was not reported within %s", within)
		return nil
	}
}

// A broker killed while intake holds the reader back is seen through the first ack
// that fails to reach it. paho took the read that then failed on the closed
// connection for its own disconnect and reported nothing until a keepalive ping went
// unanswered (30-40 s), so edged sat on a dead connection.
func TestAFailedAckWhileReadsAreHeldBackReportsTheConnectionLost(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ReadsHeldBack needs the hold watch (Linux)")
	}
	b := broker.Start(t)
	h := holdIntake(t, b, 1000)
	m := <-h.first
	b.Kill()
	// The first write to the dead broker goes out and is answered by a reset; a
	// later one fails. Acks come every few milliseconds here, so the hold watch
	// (every 500 ms) does not see the broker go first.
	waitUntil(t, "an ack failing", func() bool { m.Ack(); return h.c.GivenUp() })
	close(h.release)
	err := h.awaitLost(t, 2*time.Second)
	if !strings.Contains(err.Error(), "writing to the broker") {
		t.Errorf("reported %q, want the failed write", err)
	}
}

// A broker killed while intake holds the reader back and edged writes nothing is
// seen by the hold watch within a second; the messages queued behind the held one are
// not handed over once intake moves (the broker redelivers them), so the reconnect
// does not wait for them.
func TestABrokerGoneWhileReadsAreHeldBackIsSeenWithoutAWrite(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the hold watch needs Linux")
	}
	b := broker.Start(t)
	h := holdIntake(t, b, 1000)
	<-h.first
	b.Kill()
	killed := time.Now()
	waitUntil(t, "the connection given up", h.c.GivenUp)
	if took := time.Since(killed); took > 2*time.Second {
		t.Errorf("the broker's close was seen %s after the kill, want within 2 s", took)
	}
	close(h.release)
	err := h.awaitLost(t, 2*time.Second)
	if !strings.Contains(err.Error(), "the broker closed the connection") {
		t.Errorf("reported %q, want the hold watch's reason", err)
	}
	if n := len(h.after); n > 0 {
		t.Errorf("%d messages of the lost connection handed over after it was given up", n)
	}
}
