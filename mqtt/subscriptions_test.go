package mqtt_test

import (
	"testing"

	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
)

func TestSetSubscriptionsSubscribesNewFiltersAndDropsOldOnes(t *testing.T) {
	b := broker.Start(t)
	in := make(inbox, 16)
	sub := connect(t, mqtt.Options{URL: b.URL(), ClientID: "sub", ManualAck: true, Handler: in.handler,
		Subscriptions: []mqtt.Subscription{{Filter: "a/#", QoS: 1}, {Filter: "keep/#", QoS: 1}}})
	pub := connect(t, mqtt.Options{URL: b.URL(), ClientID: "pub", CleanSession: true})

	if err := sub.SetSubscriptions([]mqtt.Subscription{{Filter: "keep/#", QoS: 1}, {Filter: "b/#", QoS: 1}}); err != nil {
		t.Fatal(err)
	}
	// One publisher's messages arrive in order: the message on b/ arriving right
	// after the one on keep/ shows a/ is no longer delivered.
	for _, topic := range []string{"a/1", "keep/1", "a/2", "b/1"} {
		publish(t, pub, topic, 1, `{}`)
	}
	for _, want := range []string{"keep/1", "b/1"} {
		m := in.next(t)
		if m.Topic != want {
			t.Fatalf("got a message on %s, want %s", m.Topic, want)
		}
		m.Ack()
	}
}
