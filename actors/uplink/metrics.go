package uplink

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the uplink's series. The daemon's catalogue of series (actors/metrics.go)
// names and registers them; Refused is shared with the local sink, labelled by output.
type Metrics struct {
	Connected     prometheus.Gauge
	Sent          prometheus.Counter     // records the upstream acknowledged
	Dropped       *prometheus.CounterVec // policy: records dropped from a full outbox
	Duplicates    prometheus.Counter     // JetStream only: records it already held
	Refused       *prometheus.CounterVec // output: records whose topic the broker refuses
	OutboxRecords *prometheus.GaugeVec   // queue
	OutboxBytes   *prometheus.GaugeVec   // queue
	OutboxOldest  *prometheus.GaugeVec   // queue: age of the oldest entry, seconds
}
