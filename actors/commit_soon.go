package actors

import "github.com/asynkron/protoactor-go/actor"

// A result is published only after the commit of the state that produced it, so a
// result waiting for the next periodic flush waits up to a whole commit interval
// for nothing. A window actor holding a result asks the pipeline to flush now;
// the pipeline flushes at once unless an epoch is still being committed, and then
// as soon as it is: a burst of firings makes as many commits as the disk can take
// one after the other, each with every result produced meanwhile, never one per
// result.

// commitWanted flushes if a window actor asked for it and no epoch is in flight.
// The periodic flush starts its interval again: it would find little to commit.
func (p *pipeline) commitWanted(ctx actor.Context) {
	if !p.wanted || p.committed < p.epoch {
		return
	}
	p.wanted = false
	p.flush(ctx, nil)
	p.nextFlush = p.now + p.env.commitEvery
}
