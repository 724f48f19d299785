package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/commit"
)

// A result is published only after the commit of the state that produced it, so a
// result waiting for the next periodic flush waits up to a whole commit interval
// for nothing. A window actor holding a result asks the pipeline to flush now.
//
// That flush is scoped: it asks only the sources of the streams that fed the asking
// window actors since their last flush, and through them the window actors those
// sources fed, not every actor with changes (at 10,000 msg/s from 1,000 sensors a
// thousand of them, each a message and a turn). So it is answered in a few
// messages and does not wait for a full epoch in flight to be answered first: it
// goes out at once unless the previous scoped flush is still uncommitted, and then
// as soon as it is, with every result asked for meanwhile. Epochs still commit in
// order, so a scoped one commits right after the full ones before it, in the same
// batch if they are complete by then.
//
// A source's state and the window actors it fed are still committed together, as in
// a full flush, so the source's watermark is never saved ahead of the records it let
// through. A window actor fed meanwhile by a stream outside the scope answers with
// Merge: its answer holds that stream's records, and the committer commits the epoch
// only together with the next full flush, which holds that stream's state; the
// window actor asks for that flush at once.
//
// Live, with results asking for commits, the periodic full flush waits, for up to
// overdueFlushes intervals, for the full flush before it to be committed: when
// commits are slower than the interval (a loaded machine), full flushes back to back
// instead of piling up, each costing a turn of every actor with changes. It also
// waits while results are being committed (a scoped flush uncommitted or asked
// for): a scoped epoch commits only after the epochs before it, so a full one in
// flight would hold every result of a burst of firings until all its actors have
// answered.

// A result asks for its commit as its window fires, and the readings that close the
// windows of many keys come together: at a few hundred a second a burst of them
// asked for a commit each, and each commit (a turn of the sources and window actors
// it scopes, a transaction, the results' publishes) cost more than the readings
// themselves. So the first result's ask waits resultGather for the results that
// follow it, and one commit takes them all.

// resultGather is how long a result's commit waits for the results that follow it.
const resultGather = 2 * time.Millisecond

// gathered tells the pipeline that resultGather passed since the first ask.
type gathered struct{}

// overdueFlushes is how many commit intervals a periodic flush waits for the one
// before it. Past it, flushes overlap again, but at most maxFlushesInFlight epochs
// stay uncommitted: the committer does not give up on a slow answer (only on one
// lost for commit.LostReplyAfter, when an actor restarted mid-flush), so the epochs
// it holds meanwhile must not pile up. Once no commit came for LostReplyAfter the
// periodic flushes go out again, so that the committer sees later epochs close and
// gives the lost one up.
const (
	overdueFlushes     = 4
	maxFlushesInFlight = 4
)

// wantedCommit is what window actors holding results asked for since the last flush.
type wantedCommit struct {
	full    bool                // flush every actor with changes
	streams map[string]struct{} // else flush these streams' sources
}

func (p *pipeline) onCommitWanted(ctx actor.Context, m *commitWanted) {
	switch {
	case m.merged > 0:
		// The committer holds the merged epoch until a full one after it commits.
		if p.lastFull <= m.merged {
			p.flush(ctx, nil)
		}
		return
	case len(m.streams) == 0:
		p.wanted.full = true
	default:
		if p.wanted.streams == nil {
			p.wanted.streams = map[string]struct{}{}
		}
		for _, s := range m.streams {
			p.wanted.streams[s] = struct{}{}
		}
	}
	p.gather(ctx)
}

// gather commits what was asked for once env.resultGather has passed since the first
// ask, unless a gather is already under way.
func (p *pipeline) gather(ctx actor.Context) {
	if p.gathering {
		return
	}
	p.gathering = true
	if p.gatherTimer == nil {
		self, root := ctx.Self(), ctx.ActorSystem().Root
		p.gatherTimer = time.AfterFunc(p.env.resultGather, func() { root.Send(self, gathered{}) })
		return
	}
	p.gatherTimer.Reset(p.env.resultGather)
}

func (p *pipeline) onGathered(ctx actor.Context) {
	p.gathering = false
	p.commitWanted(ctx)
}

// commitWanted flushes what window actors asked for: a full flush once no epoch is in
// flight (it starts the periodic interval again: that would find little to commit),
// a scoped one once the previous scoped one is committed.
func (p *pipeline) commitWanted(ctx actor.Context) {
	if p.gathering {
		return // the gather's end commits it
	}
	switch {
	case p.wanted.full:
		if p.committed >= p.epoch {
			p.flush(ctx, nil)
			p.nextFlush = p.now + p.env.commitEvery
		}
	case len(p.wanted.streams) > 0:
		if p.committed >= p.lastScoped {
			scope := p.wanted.streams
			p.wanted = wantedCommit{}
			p.lastScoped = p.epoch + 1
			p.flushEpoch(ctx, scope, nil)
		}
	}
}

// periodicFlush flushes every actor with changes once a commit interval passed and,
// live with results asking for commits, no flush is uncommitted and no result waits
// for one, or overdueFlushes intervals passed.
func (p *pipeline) periodicFlush(ctx actor.Context, now int64) {
	if p.nextFlush == 0 || now < p.nextFlush {
		return
	}
	if p.env.commitResults && now < p.nextFlush+overdueFlushes*p.env.commitEvery &&
		(p.committed < p.lastFull || p.committed < p.lastScoped || len(p.wanted.streams) > 0) {
		return
	}
	if p.env.commitResults && p.epoch-p.committed >= maxFlushesInFlight &&
		now-p.committedAt < commit.LostReplyAfter.Milliseconds() {
		return
	}
	p.nextFlush = now + p.env.commitEvery
	if !p.changes() && !p.uptimeDue() {
		return // nothing to commit: no epoch, and the committer sleeps
	}
	p.flush(ctx, nil)
}
