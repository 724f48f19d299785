package actors

import (
	"slices"
	"testing"

	"github.com/edged/edged/actors/commit"
)

// A window's generation waits for the unit its flush sent. Once that unit is
// committed it goes back to the pool, and another actor may take it and then stay
// idle for good: the generation must still count as durable, or the window would
// keep it, and every later one, for as long.
func TestGenerationStaysDurableWhenItsUnitIsReused(t *testing.T) {
	var p pendingUnits
	u := p.Unit()
	u.Acks = append(u.Acks, commit.NewAck(nil, nil))
	f := p.Flushed(1, 0)
	var w window
	w.remember(1)
	w.settleGenerations(f.Units)
	g := &w.gens[0]
	if g.durable() {
		t.Fatal("durable before its commit")
	}
	u.Commits.Add(1) // the committer's handOn
	if !g.durable() {
		t.Fatal("not durable after its commit")
	}
	f.Release()
	var next pendingUnits
	next.Unit() // the next actor's first change takes a reply from the pool, most likely f
	if !g.durable() {
		t.Fatal("the generation's commit was forgotten when its unit was reused")
	}
}

// A QoS 1 key starts a generation of ids at every flush. Once committed, its ids
// serve the next one: a key fed at a steady rate remembers ids without allocating,
// and a redelivery is still recognised while, and only while, its flush is pending.
func TestGenerationsReuseTheirIDsOnceDurable(t *testing.T) {
	var w window
	id := uint64(0)
	// Two units made once, not taken from the pool: under the race detector
	// sync.Pool drops what it is given at random, and the count would be its.
	u, u2 := commit.NewUnit(), commit.NewUnit()
	units, units2 := []*unit{u}, []*unit{u2}
	cycle := func() {
		w.remember(id + 1)
		w.remember(id + 2)
		w.settleGenerations(units) // the flush takes id+1 and id+2
		w.remember(id + 3)         // applied after it
		if seen, durable := w.applied(id + 1); !seen || durable {
			t.Fatalf("id %d: seen %v durable %v while its flush is pending", id+1, seen, durable)
		}
		u.Commits.Add(1) // committed
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
		w.settleGenerations(units2)
		u2.Commits.Add(1)
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
