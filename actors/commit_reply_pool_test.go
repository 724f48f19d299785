package actors

import (
	"slices"
	"testing"
)

// A window's generation waits for the unit its flush sent. Once that unit is
// committed it goes back to the pool, and another actor may take it and then stay
// idle for good: the generation must still count as durable, or the window would
// keep it, and every later one, for as long.
func TestGenerationStaysDurableWhenItsUnitIsReused(t *testing.T) {
	f := takeReply()
	f.main.acks = append(f.main.acks, newAck(nil, nil))
	f.Units = append(f.one[:0], &f.main)
	var w window
	w.remember(1)
	w.settleGenerations(f.Units)
	g := &w.gens[0]
	if g.durable() {
		t.Fatal("durable before its commit")
	}
	f.main.commits.Add(1) // committer.handOn
	if !g.durable() {
		t.Fatal("not durable after its commit")
	}
	f.release()
	f.ready() // what takeReply does for the next actor that gets it
	if !g.durable() {
		t.Fatal("the generation's commit was forgotten when its unit was reused")
	}
}

// A reused reply carries nothing of its previous flush.
func TestReleasedReplyIsEmpty(t *testing.T) {
	f := takeReply()
	u := &f.main
	u.acks = append(u.acks, newAck(nil, nil), newAck(nil, nil))
	u.setStream(streamPut{device: "d", stream: "s"})
	u.addOutbox(&env{}, outboxPut{queue: "q", entry: outboxEntry{Topic: "t", Payload: []byte("p")}})
	u.slab = append(u.slab, "state"...)
	f.Units = append(f.one[:0], u)
	f.release()
	f.ready()
	if !f.main.empty() || len(f.main.slab) != 0 || f.main.bytes != 0 || f.Units != nil {
		t.Fatalf("a released reply kept %+v", &f.main)
	}
	if f.main.ackBuf[0] != nil || f.main.streamBuf.device != "" {
		t.Fatal("a released reply's inline buffers still hold what they did")
	}
}

// An actor takes a reply at its first change after a flush, not before: most of a
// gateway's actors are idle between flushes and must not hold one each.
func TestAnIdleActorHoldsNoReply(t *testing.T) {
	var p pendingUnits
	if p.reply != nil || p.main != nil {
		t.Fatal("a new actor holds a reply")
	}
	u := p.unit()
	u.acks = append(u.acks, newAck(nil, nil))
	if f := p.flushed(1, 0); len(f.Units) != 1 || !f.carriesMain() {
		t.Fatalf("the flush carried %d units, its own main %v", len(f.Units), f.carriesMain())
	}
	if p.reply != nil || p.main != nil {
		t.Fatal("the actor took its next reply before a change")
	}
	if f := p.flushed(2, 0); len(f.Units) != 0 || f.carriesMain() {
		t.Fatalf("a flush without changes carried %d units", len(f.Units))
	}
	if p.reply != nil || p.main != nil {
		t.Fatal("an idle actor kept a reply after its flush")
	}
}

// A QoS 1 key starts a generation of ids at every flush. Once committed, its ids
// serve the next one: a key fed at a steady rate remembers ids without allocating,
// and a redelivery is still recognised while, and only while, its flush is pending.
func TestGenerationsReuseTheirIDsOnceDurable(t *testing.T) {
	var w window
	id := uint64(0)
	// Two replies made once, not taken from the pool: under the race detector
	// sync.Pool drops what it is given at random, and the count would be its.
	f, f2 := takeReply(), takeReply()
	cycle := func() {
		f.Units = append(f.one[:0], &f.main)
		w.remember(id + 1)
		w.remember(id + 2)
		w.settleGenerations(f.Units) // the flush takes id+1 and id+2
		w.remember(id + 3)           // applied after it
		if seen, durable := w.applied(id + 1); !seen || durable {
			t.Fatalf("id %d: seen %v durable %v while its flush is pending", id+1, seen, durable)
		}
		f.main.commits.Add(1) // committed
		w.settleGenerations(nil)
		for _, old := range []uint64{id + 1, id + 2} {
			for _, g := range w.gens {
				if slices.Contains(g.ids, old) {
					t.Fatalf("id %d is still remembered after its commit", old)
				}
			}
		}
		if seen, durable := w.applied(id + 3); !seen || durable {
			t.Fatalf("id %d: seen %v durable %v before its flush", id+3, seen, durable)
		}
		// The next flush takes id+3 and commits it.
		f2.Units = append(f2.one[:0], &f2.main)
		w.settleGenerations(f2.Units)
		f2.main.commits.Add(1)
		w.settleGenerations(nil)
		if len(w.gens) != 0 {
			t.Fatalf("%d generations left after every flush committed", len(w.gens))
		}
		id += 3
	}
	cycle()
	if n := testing.AllocsPerRun(100, cycle); n != 0 {
		t.Fatalf("a steady key allocated %.1f times per flush cycle", n)
	}
}
