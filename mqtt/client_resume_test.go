package mqtt_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
)

// A persistent session that reconnects is reported connected at once, though the
// broker sends the session's backlog ahead of the SUBACK of the resubscription and
// intake holds the reader back before it: edged_broker_connected and /healthz
// followed the SUBACK, so they said the broker was down while edged took its backlog.
func TestAPersistentSessionIsReportedConnectedWhileItsBacklogHoldsTheSubscription(t *testing.T) {
	b := broker.Start(t)
	var holding, holdingDup atomic.Bool
	held := make(chan *mqtt.Message, 1)
	release := make(chan struct{})
	var connects atomic.Int32
	connect(t, mqtt.Options{URL: b.URL(), ClientID: "edged", CleanSession: false, ManualAck: true,
		Subscriptions: []mqtt.Subscription{{Filter: "t", QoS: 1}},
		Handler: func(m *mqtt.Message) {
			if holding.CompareAndSwap(true, false) || m.Duplicate && holdingDup.CompareAndSwap(true, false) {
				held <- m
				<-release
			}
		},
		OnConnect: func() { connects.Add(1) },
	})
	waitUntil(t, "the first connection reported", func() bool { return connects.Load() == 1 })
	// Intake holds the first of many messages: the broker keeps the rest in flight.
	holding.Store(true)
	pub := connect(t, mqtt.Options{URL: b.URL(), ClientID: "pub", CleanSession: true})
	var confirmed sync.WaitGroup
	for i := range 1000 {
		confirmed.Add(1)
		pub.Publish("t", 1, fmt.Append(nil, i), func(error) { confirmed.Done() })
	}
	confirmed.Wait()
	<-held
	// Restarted, the broker sends the session's messages again (flagged duplicate)
	// ahead of the SUBACK of the resubscription, and intake holds the first of them.
	holdingDup.Store(true)
	b.Restart()
	release <- struct{}{}
	<-held
	waitUntil(t, "the reconnection reported while intake holds the reader", func() bool { return connects.Load() == 2 })
	release <- struct{}{}
}
