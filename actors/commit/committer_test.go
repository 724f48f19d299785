package commit

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/persist"
)

// Acknowledged messages are not kept alive by the list of held acks, which the
// committer keeps for its next commit.
func TestCommitterDropsTheAcksItAcknowledged(t *testing.T) {
	c := &committer{held: []*Ack{NewAck(nil, nil), NewAck(nil, nil)}}
	c.ackHeld()
	if len(c.held) != 0 || slices.ContainsFunc(c.held[:cap(c.held)], func(a *Ack) bool { return a != nil }) {
		t.Fatal("the committer still holds acks it acknowledged")
	}
}

// A commit larger than a transaction (10,000 windows firing at once) is written a
// transaction's worth at a time: its batch never holds the whole burst, and every
// unit and result is committed, the results numbered in order.
func TestACommitLargerThanATransactionIsBatchedATransactionAtATime(t *testing.T) {
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	const units, puts = 12, 1000
	c := &committer{deps: &Deps{Store: store}, device: "dev"}
	p := &builtBatch{b: store.NewBatch()}
	for u := range units {
		un := NewUnit()
		for i := range puts {
			un.Puts = append(un.Puts, WindowPut{Key: persist.WindowKey{Device: "dev", Window: "w", Key: fmt.Sprintf("k%d-%d", u, i)}, State: []byte{byte(u)}})
		}
		un.AddOutbox(new(atomic.Uint64), OutboxPut{Queue: ResultsQueue("dev"), Entry: outbox.Entry{Topic: "t", Payload: []byte{byte(u)}}})
		p.units = append(p.units, un)
	}
	if err := c.write(p); err != nil {
		t.Fatalf("write: %v", err)
	}
	if n := p.b.Len(); n >= units*puts {
		t.Errorf("the batch holds %d changes at the end; want a transaction's worth, not all %d", n, units*(puts+1))
	}
	if p.added != units || len(p.seqs) != units {
		t.Fatalf("added %d units with %d seq lists; want %d", p.added, len(p.seqs), units)
	}
	for u, seqs := range p.seqs {
		if want := []uint64{uint64(u + 1)}; !slices.Equal(seqs, want) {
			t.Errorf("unit %d's result got seqs %v; want %v", u, seqs, want)
		}
	}
	got, err := store.LoadDevice("dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Keys) != units*puts {
		t.Errorf("the store holds %d window states; want %d", len(got.Keys), units*puts)
	}
	if s := store.Stats(ResultsQueue("dev")); s.Records != units {
		t.Errorf("the results outbox holds %d entries; want %d", s.Records, units)
	}
}
