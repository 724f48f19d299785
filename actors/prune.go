package actors

import "github.com/edged/edged/actors/outbox"

// DeviceQueues names the outbox queues a device's pipeline writes: its committed
// results for the local broker and its records for upstream. Tools that delete a
// device's state (edged prune) delete these with it.
func DeviceQueues(device string) []string {
	return []string{resultsQueue(device), outbox.UpstreamQueue(device)}
}
