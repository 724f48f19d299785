package actors

import (
	"slices"
	"testing"
)

// Acknowledged messages are not kept alive by the list of held acks, which the
// committer keeps for its next commit.
func TestCommitterDropsTheAcksItAcknowledged(t *testing.T) {
	c := &committer{held: []*ack{newAck(nil, nil), newAck(nil, nil)}}
	c.ackHeld()
	if len(c.held) != 0 || slices.ContainsFunc(c.held[:cap(c.held)], func(a *ack) bool { return a != nil }) {
		t.Fatal("the committer still holds acks it acknowledged")
	}
}
