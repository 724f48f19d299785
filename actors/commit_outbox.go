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

// resultsQueue names a device's result outbox; each device has its own queues so
// order is kept per device.
func resultsQueue(device string) string { return "res/" + device }
