// Package outbox is what the topology and the readers of its outboxes (the uplink,
// the sink, replay's writer) share: an outbox entry and its encoding in the store,
// the name of a device's upstream queue and the record id the cloud deduplicates by,
// and the messages they exchange: Enqueued hands a reader newly committed entries,
// Delivered tells the device's committer which ones it may delete, Detach that the
// committer is stopping. Tick lives here
// too, because every actor of the runtime, readers included, takes processing time
// only from it.
//
// This package imports no other package of edged, so actors and its sub-packages
// can all import it.
package outbox
