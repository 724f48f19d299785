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
// Daemon.Apply changes the running device configs live (daemon_reload.go): only
// the pipelines of changed devices are replaced, after what they took is
// committed, while the router holds their new messages (router_hold.go).
//
// Message flow, one MQTT message to a published result:
//
//	MQTT -> router -> source -> window -> (Flush) -> committer -> sink -> broker
//	                                                           -> uplink -> cloud
//
// The router (not an actor: it runs on the MQTT client's goroutine) hands each
// Inbound to the source actor of its topic, found in the pipeline's source index,
// or waits for the device's pipeline to spawn or restore one. The source decodes
// the reading, moves its stream's watermark and sends the record (RecordDecoded)
// to the window actor of each key it is bound to; a key it has no address for goes
// through the pipeline, which spawns or restores the window actor and binds it
// (routeRecord, keyBound). Watermark changes follow the same way
// (WatermarkEmitted). A window actor adds the record to its windows and fires
// those the watermark closed. On
// every flush the pipeline asks its sources, and they the window actors they
// touched, for their changes: each answers the committer with a Flushed reply of
// units, and the pipeline tells the committer how many replies make the epoch
// (EpochClosed). The committer writes an epoch's units in one Badger transaction,
// then acknowledges the MQTT messages they hold and hands the committed outbox
// entries on (Enqueued): results to the sink, which publishes them to the local
// broker, upstream records to the uplink; each reports them delivered so their
// outbox entries are deleted in a later commit.
//
// Files are named after the actor or type they hold:
//
//   - router*.go: the router, its hold queue for reloading devices, the Inbound
//     pool.
//   - pipeline*.go: the per-device pipeline actor: spawning, restore and its
//     readiness gate, ticks and flushes, commit scheduling (pipeline_commit_soon.go),
//     early firings, the key limit, key and source passivation, the source index
//     and schedule it keeps, its timers, the device uptime, and its answers to
//     /explain and /status.
//   - source*.go: the source actor of one concrete topic: intake and the
//     watermark (source.go), sending to window actors and flushing (source_send.go),
//     sleeping while idle, quiet-watermark timers, passivation, the pool of
//     watermark changes.
//   - window*.go: the window actor of one window definition and key: records and
//     firings (window.go), its saved state, passivation, late-record routes, result
//     topics, the summaries /status shows and the state /explain shows.
//   - commit_*.go: this package's names for the commit protocol of actors/commit
//     (commit_protocol.go) and for the outbox contract of actors/outbox, and the
//     outbox queues of a device (commit_outbox.go).
//   - sink.go: the sink actor, publishing committed results to the local broker.
//   - topology*.go: the actor tree of a daemon or replay, its supervisor, and when
//     a live topology is ticked.
//   - daemon*.go: the running edged: start and stop, live reload, fleet configs,
//     /explain, the /status loop, the memory budget, one scheduler P at low rates
//     (daemon_procs.go).
//   - replay*.go: offline replay with a virtual clock and its output order.
//   - metrics*.go: the Prometheus metrics.
//   - shared by all: messages.go (every message between actors), env.go (what
//     a daemon's actors share), plan.go (a device config compiled for the
//     actors), records.go (the output record encodings), burstlog.go and
//     small_map.go.
//
// Sub-packages:
//
//   - actors (this package): the topology (router, pipeline, source and window
//     actors, topology.go), the sink, the daemon, replay and metrics, and the glue
//     that runs the status sampler (daemon_status_loop.go).
//   - actors/commit: the commit protocol: units (what one reply carries into an
//     epoch) and the Pending units of an actor, the pool of Flushed replies, acks
//     and in-flight accounting, the messages of the protocol (this package's names
//     for them are aliases), and the committer actor, one per device, with the
//     failures /healthz reports. The pipeline spawns it with commit.Deps, what it
//     needs of the daemon.
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
// commit imports outbox, workers, persist and watermark, status imports
// watermark, and outbox and workers import no package of edged; a sub-package
// never imports actors. This package may import everything else in edged;
// nothing but cmd/ and testing/ imports it.
package actors
