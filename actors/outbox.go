package actors

import "github.com/edged/edged/actors/outbox"

// The outbox contract lives in package outbox, which the uplink shares; these are the
// topology's names for it.
type (
	outboxEntry = outbox.Entry
	Tick        = outbox.Tick
	Enqueued    = outbox.Enqueued
	Delivered   = outbox.Delivered
)

// Outbox queue names. Each device has its own queues so order is kept per device.
func resultsQueue(device string) string  { return "res/" + device }
func upstreamQueue(device string) string { return outbox.UpstreamQueue(device) }

func decodeOutboxEntry(seq uint64, b []byte) (outboxEntry, error) { return outbox.Decode(seq, b) }

func withID(device string, seq uint64, rec []byte) []byte { return outbox.WithID(device, seq, rec) }
