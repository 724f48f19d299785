// Package uplink ships what the devices put in their upstream outboxes ("up/<device>":
// late records and, when a window asks, its results) to a cloud MQTT broker or NATS
// JetStream, at least once and in order per device, holding it in the Badger outbox
// while the link is down.
//
// It owns the upstream-sync actor (upstream.go: batching, pacing, retries; limit.go:
// the full-outbox policies), the Link the daemon starts, spawns the actor through and
// asks whether the uplink is up or intake must stop (link.go), and the two transports
// (mqtt.go, nats.go).
//
// It may import actors/outbox (the entries, the queue names, Tick, Enqueued and
// Delivered it shares with the topology), persist, configs, mqtt and natsjs; never
// actors, which imports it.
package uplink
