package actors

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/configs"
)

// A removed device's or window's series go from every labelled vector; the rest stay.
func TestMetricsForget(t *testing.T) {
	m := MetricsFor(configs.Metrics{})
	m.Firings.WithLabelValues("a", "w1").Inc()
	m.Firings.WithLabelValues("a", "w2").Inc()
	m.Firings.WithLabelValues("b", "w1").Inc()
	m.Inflight.WithLabelValues("a").Set(3)
	m.Inflight.WithLabelValues("b").Set(4)
	m.Uplink.OutboxRecords.WithLabelValues("results/a").Set(1)

	m.forget(prometheus.Labels{"device": "a", "window": "w2"})
	if n := countSeries(m.Firings); n != 2 {
		t.Fatalf("after forgetting window a/w2: %d firing series, want 2", n)
	}
	m.forget(prometheus.Labels{"device": "a"})
	if n := countSeries(m.Firings); n != 1 {
		t.Errorf("after forgetting device a: %d firing series, want 1 (b/w1)", n)
	}
	if n := countSeries(m.Inflight); n != 1 {
		t.Errorf("after forgetting device a: %d inflight series, want 1 (b)", n)
	}
	if n := countSeries(m.Uplink.OutboxRecords); n != 1 {
		t.Errorf("a vector without a device label lost its series: %d, want 1", n)
	}
}

func countSeries(c prometheus.Collector) int {
	ch := make(chan prometheus.Metric, 16)
	go func() { c.Collect(ch); close(ch) }()
	n := 0
	for range ch {
		n++
	}
	return n
}
