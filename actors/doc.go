// Package actors is edged's runtime: the protoactor-go topology that wires the pure
// event-time core (watermark, windows) to its I/O (MQTT intake, Badger state, result
// and late-data outputs).
//
// One pipeline actor per device config supervises a source actor per concrete sensor
// topic, a window actor per window definition and key, and a committer that turns the
// actors' changes into one Badger transaction before anything they produced is
// acknowledged or published. Time reaches the actors only as Tick messages, so the
// same topology runs live (a ticker) and in replay (a virtual clock, synchronized
// dispatcher, byte-identical output).
//
// Daemon.Apply changes the running device configs live (daemon_reload.go): only the
// pipelines of changed devices are replaced, after what they took is committed,
// while the router holds their new messages (router_hold.go).
//
// Layout:
//
//   - actors (this package): the topology (router, pipeline, source and window
//     actors, topology.go), the durability protocol (units, flush, committer, sink,
//     outboxes), the daemon, replay and metrics, and the glue that runs the status
//     sampler (daemon_status_loop.go).
//   - actors/uplink: the upstream-sync actor that ships the upstream outboxes to a
//     cloud MQTT broker or NATS JetStream, and its transports. The daemon starts an
//     uplink.Link and spawns the actor through it.
//   - actors/outbox: what the two share: outbox entries and their encoding, the
//     upstream queue name, record ids, and the messages Tick, Enqueued and
//     Delivered (this package's names for them are aliases) and Detach.
//   - actors/workers: the live dispatcher, the goroutines that run every mailbox
//     (replay runs on protoactor's synchronized one instead).
//   - actors/status: the per-topic statistics the sources set on the record path,
//     their Prometheus collector, and the /status page: its model, its sampler,
//     its handlers.
//
// Imports go one way: actors imports its sub-packages, uplink imports outbox,
// status imports watermark, and outbox and workers import no package of edged; a
// sub-package never imports actors. This package may import everything else in
// edged; nothing but cmd/ and testing/ imports it.
package actors
