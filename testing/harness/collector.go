package harness

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/edged/edged/mqtt"
)

// Collector subscribes to result topics and keeps every result record it receives.
type Collector struct {
	mu      sync.Mutex
	results []Result
	raw     [][]byte
	bad     []error
}

// Collect subscribes to filter on the broker at url (QoS 1) until the test ends.
func Collect(t testing.TB, url, filter string) *Collector {
	t.Helper()
	c := &Collector{}
	cl, err := mqtt.Connect(context.Background(), mqtt.Options{
		URL: url, ClientID: fmt.Sprintf("collector-%d", time.Now().UnixNano()), CleanSession: true,
		Subscriptions: []mqtt.Subscription{{Filter: filter, QoS: 1}},
		Handler: func(m *mqtt.Message) {
			r, err := ParseResult(m.Payload)
			c.mu.Lock()
			defer c.mu.Unlock()
			c.raw = append(c.raw, append([]byte(nil), m.Payload...))
			if err != nil {
				c.bad = append(c.bad, err)
				return
			}
			c.results = append(c.results, r)
		},
	})
	if err != nil {
		t.Fatalf("collector: %v", err)
	}
	t.Cleanup(func() { cl.Close(time.Second) })
	return c
}

// Results returns a copy of what arrived so far; it fails the test on any payload
// that was not a result record.
func (c *Collector) Results(t testing.TB) []Result {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bad) > 0 {
		t.Fatalf("collector received %d malformed results, first: %v", len(c.bad), c.bad[0])
	}
	return append([]Result(nil), c.results...)
}

// Len is how many results arrived.
func (c *Collector) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.results)
}
