package commit

import (
	"cmp"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/persist"
)

// committer turns the flushed changes of one device's actors into Badger
// transactions: persist first, then acknowledge the MQTT messages whose effects are now
// durable, then hand committed results and late records to the actors that ship them.
type committer struct {
	deps   *Deps
	device string

	units     []*Unit                  // ready for the next commit
	early     map[uint64][]*Unit       // units of epochs still waiting for replies
	replies   map[uint64][]replyUnits  // where each reply's units are in early, and its stamp
	waiting   map[uint64]int           // epoch -> Flushed replies still expected (negative: early replies)
	closed    []uint64                 // epochs whose size is known, oldest first
	full      map[uint64]bool          // closed epochs that asked every actor with changes
	merge     map[uint64]bool          // epochs with a Merge reply: commit only with a later full one
	epochDone map[uint64]chan struct{} // closed once the epoch is committed (shutdown)
	uptimes   map[uint64]int64         // closed epochs that save the device's uptime
	closedAt  map[uint64]int64         // processing time (ms) each closed epoch closed at
	uptime    int64                    // the uptime of the epochs in units, if not 0
	dones     []chan struct{}          // of epochs in units
	failed    bool
	pending   bool // deliveries wait for a commit, and the pipeline knows

	settled   uint64         // the newest epoch committed or given up on
	retry     *builtBatch    // a batch whose commit failed
	spare     *persist.Batch // the last committed batch, reset: its buffers serve the next
	delivered *Unit          // the last unit in units collecting dequeues, if any
	held      []*Ack         // committed, not yet acknowledged: intake is blocked
}

// replyUnits is one Flushed reply's place among its epoch's units: its n units, and
// the stamp of its first output.
type replyUnits struct {
	stamp uint64
	n     int
}

// appendByStamp appends an epoch's units to dst a reply at a time, the replies in the
// order of their stamps (stable).
func appendByStamp(dst, units []*Unit, replies []replyUnits) []*Unit {
	if slices.IsSortedFunc(replies, compareStamps) {
		return append(dst, units...)
	}
	type span struct {
		replyUnits
		at int
	}
	spans := make([]span, len(replies))
	at := 0
	for i, r := range replies {
		spans[i] = span{r, at}
		at += r.n
	}
	slices.SortStableFunc(spans, func(a, b span) int { return compareStamps(a.replyUnits, b.replyUnits) })
	for _, s := range spans {
		dst = append(dst, units[s.at:s.at+s.n]...)
	}
	return dst
}

func compareStamps(a, b replyUnits) int { return cmp.Compare(a.stamp, b.stamp) }

// firstStamp is the lowest stamp of the units with outputs, or 0.
func firstStamp(units []*Unit) uint64 {
	var s uint64
	for _, u := range units {
		if u.Stamp != 0 && (s == 0 || u.Stamp < s) {
			s = u.Stamp
		}
	}
	return s
}

// An epoch is given up on, and committed without the replies it still waits for,
// only once more than maxOpenEpochs epochs are waiting and it has waited
// LostReplyAfter: a reply that late was lost (its actor restarted mid-flush). A reply
// that is merely slow must not be given up on: the epoch is a consistent cut, and
// committing the rest of it without the slow actor's units saves its sources'
// watermarks ahead of records whose acks that actor still holds, which a crash
// then has the broker redeliver as late. The pipeline keeps the epochs in flight
// below maxOpenEpochs meanwhile (pipeline_commit_soon.go), so held epochs do not
// pile up.
const (
	maxOpenEpochs  = 8
	LostReplyAfter = 30 * time.Second
)

// NewCommitter returns the committer of device's actors; its parent is the device's
// pipeline, which it tells Committed and CommitPending.
func NewCommitter(deps *Deps, device string) actor.Actor {
	return &committer{
		deps: deps, device: device, early: map[uint64][]*Unit{}, replies: map[uint64][]replyUnits{}, waiting: map[uint64]int{}, epochDone: map[uint64]chan struct{}{},
		full: map[uint64]bool{}, merge: map[uint64]bool{}, uptimes: map[uint64]int64{}, closedAt: map[uint64]int64{},
	}
}

func (c *committer) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *Flushed:
		if src := m.Carried; src != nil {
			m.Carried = nil
			c.onFlushed(ctx, src) // the source's units go before its window actor's
		}
		c.onFlushed(ctx, m)
	case *EpochClosed:
		c.waiting[m.Epoch] += m.Expect
		c.closed = append(c.closed, m.Epoch)
		if m.Full {
			c.full[m.Epoch] = true
		}
		if m.Done != nil {
			c.epochDone[m.Epoch] = m.Done
		}
		if m.Uptime != 0 {
			c.uptimes[m.Epoch] = m.Uptime
		}
		// Replies to an epoch may still be on their way when the next one closes; an
		// epoch that stays incomplete for many more, and long, lost a reply (an actor
		// restarted mid-flush): stop waiting for it rather than stall the device.
		// Whatever arrives for it later is committed with the next epoch.
		c.closedAt[m.Epoch] = m.At
		for len(c.closed) > maxOpenEpochs && (c.waiting[c.closed[0]] > 0 || c.merge[c.closed[0]]) &&
			m.At-c.closedAt[c.closed[0]] >= LostReplyAfter.Milliseconds() {
			c.deps.Log.Warn("an epoch lost replies; committing without them", "device", c.device, "epoch", c.closed[0], "missing", c.waiting[c.closed[0]])
			c.settle(1)
		}
		c.maybeCommit(ctx)
	case *Published:
		c.dequeue(ctx, ResultsQueue(c.device), m.Seqs)
	case *outbox.Delivered:
		c.dequeue(ctx, m.Queue, m.Seqs)
	}
}

// onFlushed takes one actor's reply to a flush.
func (c *committer) onFlushed(ctx actor.Context, m *Flushed) {
	if !m.CarriesMain() {
		defer m.Release() // nothing else of it is read past this reply
	}
	if m.Epoch <= c.settled {
		c.units = append(c.units, m.Units...)
		return
	}
	c.waiting[m.Epoch] += m.Extra - 1
	if len(m.Units) > 0 {
		c.replies[m.Epoch] = append(c.replies[m.Epoch], replyUnits{stamp: firstStamp(m.Units), n: len(m.Units)})
		c.early[m.Epoch] = append(c.early[m.Epoch], m.Units...)
	}
	if m.Merge {
		c.merge[m.Epoch] = true
	}
	c.maybeCommit(ctx)
}

// dequeue notes outbox entries that were delivered; they are deleted with the next
// commit, in units no larger than an actor's (commit.Unit.Full). Deletes need no
// atomicity with each other: a crash between two units only publishes the rest again,
// which revisions make harmless.
func (c *committer) dequeue(ctx actor.Context, queue string, seqs []uint64) {
	if !c.pending && len(seqs) > 0 {
		// The pipeline flushes only when something changed: tell it these wait.
		c.pending = true
		ctx.Send(ctx.Parent(), &CommitPending{})
	}
	for _, s := range seqs {
		if c.delivered == nil || c.delivered.Full(0, 0) {
			c.delivered = &Unit{}
			c.units = append(c.units, c.delivered)
		}
		c.delivered.Dequeue = append(c.delivered.Dequeue, DequeuePut{Queue: queue, Seq: s})
	}
}

// maybeCommit commits the oldest closed epochs that have all their replies. Each
// epoch is a consistent cut (a stream's watermark with the records it let through), so
// an epoch commits whole and after the ones before it; a later epoch still waiting for
// replies does not hold back the complete ones, which under load would stall commits
// for good. An epoch with a Merge reply is not a cut by itself: it commits with the
// next full epoch (see the actors' pipeline_commit_soon.go).
func (c *committer) maybeCommit(ctx actor.Context) {
	n, held := 0, false
	for i, e := range c.closed {
		if c.waiting[e] > 0 {
			break
		}
		held = (held || c.merge[e]) && !c.full[e]
		if !held {
			n = i + 1
		}
	}
	if n > 0 {
		c.settle(n)
		c.commit(ctx)
	}
}

// tried tells the pipeline (the parent), which holds wanted commits while one is in
// flight, that the epochs settled so far were committed or tried. It goes before the
// commit's acks and hand-offs, which take a while: the next flush's answers queue
// behind them meanwhile instead of starting after them.
func (c *committer) tried(ctx actor.Context) {
	if c.deps.TellCommitted {
		ctx.Send(ctx.Parent(), &Committed{Epoch: c.settled})
	}
}

// settle moves the units of the n oldest closed epochs to the next commit.
func (c *committer) settle(n int) {
	for _, e := range c.closed[:n] {
		// The replies in the order their outputs were produced, not the order they
		// arrived in, which follows the actors' turns: outbox entries, and so the ids
		// of late records, are numbered in the order things happened. A reply's
		// units keep their own order, and replies without outputs go first, in the
		// order they came.
		c.units = appendByStamp(c.units, c.early[e], c.replies[e])
		delete(c.replies, e)
		if d := c.epochDone[e]; d != nil {
			c.dones = append(c.dones, d)
		}
		delete(c.early, e)
		delete(c.waiting, e)
		delete(c.epochDone, e)
		delete(c.full, e)
		delete(c.merge, e)
		delete(c.closedAt, e)
		if u, ok := c.uptimes[e]; ok {
			c.uptime = u
			delete(c.uptimes, e)
		}
		c.settled = e
	}
	c.closed = c.closed[n:]
}

// commit writes the units gathered so far, then acknowledges and hands on what
// they hold. A commit that fails is retried as it is with the next epoch: persist
// skips the units it already wrote, so nothing is enqueued twice, and units that
// arrive meanwhile wait for the commit after it.
func (c *committer) commit(ctx actor.Context) {
	c.pending = false
	if c.retry == nil && (len(c.units) > 0 || c.uptime != 0) {
		b := c.spare
		if b == nil {
			b = c.deps.Store.NewBatch()
		}
		c.spare = nil
		c.retry = &builtBatch{b: b, units: c.units, uptime: c.uptime}
		c.units, c.delivered, c.uptime = nil, nil, 0
	}
	p, start := c.retry, time.Now()
	var err error
	if p != nil {
		c.deps.blocking(func() { err = c.write(p) })
	}
	c.tried(ctx)
	if p != nil {
		if err != nil {
			// Nothing is acknowledged, so the broker keeps every message. Intake
			// stalls instead of losing data.
			c.deps.CommitErrors.Inc()
			c.deps.Failures.set(c.device, err) // the latest cause, for /healthz
			if !c.failed {
				c.deps.Log.Error("committing state failed; intake is stalled until a commit succeeds", "device", c.device, "err", err)
			}
			c.failed = true
			// A stop waiting for this commit must not wait for the disk: what is
			// left unacknowledged stays with the broker.
			c.closeDones()
			return
		}
		c.retry = nil
		p.b.Reset()
		c.spare = p.b
		if c.failed {
			c.deps.Log.Info("committing state works again", "device", c.device)
			c.deps.Failures.set(c.device, nil)
			c.failed = false
		}
		c.deps.Commits.Inc()
		c.deps.CommitSeconds.Observe(time.Since(start).Seconds())
		c.handOn(ctx, p)
	}
	if !c.deps.blocked() {
		c.ackHeld()
	}
	c.closeDones()
}

// ackHeld acknowledges the held acks and drops them from the list it keeps: each is
// part of the message it acknowledges, which an idle device would otherwise keep
// alive, as many as its last commit acknowledged.
func (c *committer) ackHeld() {
	for _, a := range c.held {
		a.Done()
	}
	clear(c.held)
	c.held = c.held[:0]
}

// closeDones tells whoever asked for a flush that the commit was tried.
func (c *committer) closeDones() {
	for _, d := range c.dones {
		close(d)
	}
	c.dones = c.dones[:0]
}

// write adds p's units to its batch and commits it, a transaction's worth at a time
// (persist.Batch.Full): the batch of a burst holds one, not the whole burst. On error
// the batch keeps the units it did not write and p where to go on from.
func (c *committer) write(p *builtBatch) error {
	for {
		for p.added < len(p.units) && !p.b.Full() {
			p.seqs = append(p.seqs, c.add(p.b, p.units[p.added]))
			p.added++
		}
		if p.added == len(p.units) && p.uptime != 0 {
			// After the epochs' states: with them, or after them if they took
			// more than one transaction.
			p.b.PutUptime(c.device, p.uptime)
			p.uptime = 0
		}
		if err := c.deps.Store.Commit(p.b); err != nil {
			return err
		}
		if p.added == len(p.units) {
			return nil
		}
		p.b.Reset()
	}
}

// builtBatch is the units of one commit, the batch they are being written in, and
// the outbox sequence numbers of those added to it so far.
type builtBatch struct {
	b      *persist.Batch
	units  []*Unit
	added  int // units[:added] are in b or were committed from it
	seqs   [][]uint64
	uptime int64 // to save after the units, if not 0
}

// handOn runs after a commit: committed results go to the sink, late records to
// upstream, acks wait in held until intake may go on.
func (c *committer) handOn(ctx actor.Context, p *builtBatch) {
	results := &outbox.Enqueued{Queue: ResultsQueue(c.device), ReplyTo: ctx.Self()}
	late := &outbox.Enqueued{Queue: outbox.UpstreamQueue(c.device), ReplyTo: ctx.Self()}
	for i, u := range p.units {
		if u.Commits != nil {
			u.Commits.Add(1)
		}
		for j, o := range u.Outbox {
			e := o.Entry
			e.Seq = p.seqs[i][j]
			if o.Queue == results.Queue {
				results.Entries = append(results.Entries, e)
			} else {
				late.Entries = append(late.Entries, e)
			}
		}
		c.held = append(c.held, u.Acks...)
		if u.Reply != nil {
			u.Reply.Release() // the last read of u
		}
	}
	if len(results.Entries) > 0 {
		ctx.Send(c.deps.Sink, results)
	}
	if len(late.Entries) > 0 && c.deps.Late != nil {
		ctx.Send(c.deps.Late, late)
	}
}

// add writes one unit into the batch and returns the outbox sequence numbers it got.
func (c *committer) add(b *persist.Batch, u *Unit) []uint64 {
	if u.Stream != nil {
		b.PutStream(u.Stream.Device, u.Stream.Stream, u.Stream.State)
	}
	if u.Def != nil {
		b.PutWindowDef(u.Def.Device, u.Def.Window, u.Def.Def)
	}
	if u.Valve != nil {
		b.PutValve(u.Valve.Device, u.Valve.Window, u.Valve.Key, u.Valve.Watermark, u.Valve.Inputs)
	}
	if d := u.DropValve; d != nil {
		b.DeleteValve(d.Device, d.Window, d.Key)
	}
	if d := u.DropStream; d != nil {
		b.DeleteStream(d.Device, d.Stream)
	}
	for _, k := range u.Deletes {
		b.DeleteWindow(k)
	}
	for _, p := range u.Puts {
		b.PutWindow(p.Key, p.State)
	}
	for _, m := range u.Marks {
		b.PutMark(c.device, m.Window, m.Key, m.ID)
	}
	var seqs []uint64
	for _, o := range u.Outbox {
		seqs = append(seqs, b.Enqueue(o.Queue, o.Entry.Encode()))
	}
	for _, d := range u.Dequeue {
		b.Dequeue(d.Queue, d.Seq)
	}
	b.EndUnit()
	return seqs
}
