package actors

import "github.com/prometheus/client_golang/prometheus"

// forget deletes every labelled series whose labels include all of labels, in
// every vector of m: a removed device or window must not linger on /status.
// Vectors without one of those labels match nothing. A removed device's stream
// statistics go too (they are not Prometheus vectors).
func (m *Metrics) forget(labels prometheus.Labels) {
	if dev, ok := labels["device"]; ok && len(labels) == 1 {
		m.Streams.ForgetDevice(dev)
	}
	for _, v := range m.labelled {
		v.DeletePartialMatch(labels)
	}
}
