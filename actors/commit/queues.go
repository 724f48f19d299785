package commit

// ResultsQueue names a device's result outbox; each device has its own queues so
// order is kept per device.
func ResultsQueue(device string) string { return "res/" + device }
