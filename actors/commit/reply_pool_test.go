package commit

import (
	"sync/atomic"
	"testing"

	"github.com/edged/edged/actors/outbox"
)

// A reused reply carries nothing of its previous flush.
func TestReleasedReplyIsEmpty(t *testing.T) {
	f := takeReply()
	u := &f.main
	u.Acks = append(u.Acks, NewAck(nil, nil), NewAck(nil, nil))
	u.SetStream(StreamPut{Device: "d", Stream: "s"})
	u.AddOutbox(new(atomic.Uint64), OutboxPut{Queue: "q", Entry: outbox.Entry{Topic: "t", Payload: []byte("p")}})
	u.Slab = append(u.Slab, "state"...)
	f.Units = append(f.one[:0], u)
	f.Release()
	f.ready()
	if !f.main.Empty() || len(f.main.Slab) != 0 || f.main.Bytes != 0 || f.Units != nil {
		t.Fatalf("a released reply kept %+v", &f.main)
	}
	if f.main.ackBuf[0] != nil || f.main.streamBuf.Device != "" {
		t.Fatal("a released reply's inline buffers still hold what they did")
	}
}

// An actor takes a reply at its first change after a flush, not before: most of a
// gateway's actors are idle between flushes and must not hold one each.
func TestAnIdleActorHoldsNoReply(t *testing.T) {
	var p Pending
	if p.reply != nil || p.main != nil {
		t.Fatal("a new actor holds a reply")
	}
	u := p.Unit()
	u.Acks = append(u.Acks, NewAck(nil, nil))
	if f := p.Flushed(1, 0); len(f.Units) != 1 || !f.CarriesMain() {
		t.Fatalf("the flush carried %d units, its own main %v", len(f.Units), f.CarriesMain())
	}
	if p.reply != nil || p.main != nil {
		t.Fatal("the actor took its next reply before a change")
	}
	if f := p.Flushed(2, 0); len(f.Units) != 0 || f.CarriesMain() {
		t.Fatalf("a flush without changes carried %d units", len(f.Units))
	}
	if p.reply != nil || p.main != nil {
		t.Fatal("an idle actor kept a reply after its flush")
	}
}

// A window's generation compares the commit count of a unit it sent with the one it
// saw: a released reply taken again keeps its main unit's count, which only grows.
func TestAReusedUnitKeepsItsCommitCount(t *testing.T) {
	f := takeReply()
	f.main.Commits = new(atomic.Uint32)
	f.main.Commits.Add(1)
	c := f.main.Commits
	f.Release()
	f.ready()
	if f.main.Commits != c || c.Load() != 1 {
		t.Fatal("a reused unit lost its commit count")
	}
}
