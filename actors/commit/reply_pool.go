package commit

import (
	"slices"
	"sync"
)

// replyPool recycles Flushed replies with the main unit each embeds: an actor
// flushes every commit interval, and a reply made afresh at each flush would be two
// allocations more on the record path.
//
// Lifetime: an actor takes a reply at its first change after a flush
// (Pending.Unit), or at the flush if it has none, and sends it to its committer at
// the flush (a source that touched one window actor through it, which only hands it
// on). From then on the committer owns it and puts it back once nothing reads it:
// on receipt if its main unit is not among the units it carries (nothing changed in
// it), else after the commit that made that unit durable handed its results and acks
// on. A failed commit keeps it until the retry succeeds.
//
// A window's generation may still hold the commit count of a unit that went back to
// the pool, or is in use again: it compares the count with the one it saw, and a
// unit is only reused after the commit it waits for.
var replyPool = sync.Pool{New: func() any { return new(Flushed) }}

// takeReply returns an empty reply whose main unit is ready for changes.
func takeReply() *Flushed {
	f := replyPool.Get().(*Flushed)
	f.ready()
	return f
}

// ready prepares a new or released reply for its next flush.
func (f *Flushed) ready() {
	f.main.init()
	f.main.Reply = f
}

// CarriesMain reports whether f's own main unit is among the units it carries.
func (f *Flushed) CarriesMain() bool { return slices.Contains(f.Units, &f.main) }

// Release puts f back in the pool; the committer calls it once it is done with f.
func (f *Flushed) Release() {
	f.main.reset()
	f.Epoch, f.Extra, f.Merge, f.Units, f.one[0] = 0, 0, false, nil, nil
	f.Carried, f.Flush = nil, nil
	replyPool.Put(f)
}
