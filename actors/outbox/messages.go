package outbox

import "github.com/asynkron/protoactor-go/actor"

// Tick carries processing time (ms) into the topology; no actor reads a clock.
type Tick struct{ Now int64 }

// Enqueued tells an outbox reader that new entries were committed; it reports what
// it is done with to ReplyTo (the device's committer): the uplink and replay's
// writer as Delivered, the sink as the topology's Published.
type Enqueued struct {
	Queue   string
	Entries []Entry
	ReplyTo *actor.PID
}

// Detach tells an outbox reader that the queue's committer is stopping (a live reload
// replaces its device): a report sent to it would be lost. The reader deletes what it
// is done with itself from then on, until an Enqueued names the next committer. Done
// is closed once every earlier report is on its way.
type Detach struct {
	Queue string
	Done  chan struct{}
}

// Delivered reports outbox entries the upstream side is done with.
type Delivered struct {
	Queue string
	Seqs  []uint64
}
