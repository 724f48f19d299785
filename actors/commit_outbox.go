package actors

import (
	"github.com/edged/edged/actors/outbox"

	"github.com/edged/edged/actors/commit"
)

// The outbox contract lives in package outbox, which the uplink shares; these are the
// topology's names for it.
type (
	outboxEntry = outbox.Entry
	Tick        = outbox.Tick
	Enqueued    = outbox.Enqueued
	Delivered   = outbox.Delivered
)

// DeviceQueues names the outbox queues a device's pipeline writes: its committed
// results for the local broker and its records for upstream. Tools that delete a
// device's state (edged prune) delete these with it.
func DeviceQueues(device string) []string {
	return []string{commit.ResultsQueue(device), outbox.UpstreamQueue(device)}
}
