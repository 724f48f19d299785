package actors

// DeviceQueues names the outbox queues a device's pipeline writes: its committed
// results for the local broker and its records for upstream. Tools that delete a
// device's state (edged prune) delete these with it.
func DeviceQueues(device string) []string {
	return []string{resultsQueue(device), upstreamQueue(device)}
}
