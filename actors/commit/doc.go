// Package commit is edged's commit protocol: what the actors of a device hand their
// committer at a flush, and how what they hold is acknowledged once it is durable.
//
// A device's pipeline cuts its actors' work into epochs: at every flush (Flush) each
// actor with changes answers the committer with a Flushed reply of units, and the
// pipeline tells the committer how many replies make the epoch. A Unit is a piece of
// one actor's changes (window and stream states, dedup marks, outbox entries, the
// acks of the messages applied), written in one Badger transaction; Pending collects
// an actor's units between two flushes, and the replies and their main units come
// from a pool, so an actor's steady flush allocates nothing.
//
// The rules the protocol keeps:
//
//   - An epoch commits whole (a stream's watermark with the records it let through),
//     and after the epochs before it.
//   - A QoS 1 message is acknowledged to the broker only after the commit that holds
//     its effects (Ack): a crash before that has the broker deliver it again, and
//     its dedup mark, committed with its effect, recognises what was applied.
//   - Results and late records are published only after the commit that holds them
//     in an outbox: what a crash loses was never seen outside.
//   - Inflight counts a device's messages between arrival and acknowledgement, so
//     intake stops at limits.max_inflight instead of growing without bound.
//
// The committer (one per device, spawned by the device's pipeline with Deps) writes
// an epoch's units in one Badger transaction, then acknowledges the messages they
// hold and hands the committed outbox entries on: results to the sink, upstream
// records to the uplink, each of which reports them delivered so the entries are
// deleted in a later commit.
//
// The package imports actors/outbox (a unit's outbox entries), actors/workers (a
// commit waits for the disk off the live workers), persist and watermark (the
// states a unit writes); it never imports actors.
package commit
