package uplink

import (
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/persist"
)

// Props builds the props of an actor that runs on the runtime's dispatcher (the
// default one live, the synchronized one in tests that need determinism).
type Props func(actor.Producer, ...actor.PropsOption) *actor.Props

// env is what the upstream actor takes from the runtime it runs in.
type env struct {
	store   *persist.Store
	log     *slog.Logger
	metrics *Metrics
}

// Metrics are the uplink's series. The daemon's catalogue of series names and
// registers them; Refused is shared with the local sink, labelled by output.
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
