package actors

import (
	"testing"

	"github.com/edged/edged/actors/commit"
)

// Live, a periodic flush waits while maxFlushesInFlight epochs are uncommitted, also
// past overdueFlushes intervals: the committer holds an epoch whose answer is slow
// with every epoch after it, so epochs must not pile up behind it. Once the oldest
// has waited commit.LostReplyAfter (an answer lost, not slow), flushes go out again
// so the committer can give it up.
func TestPeriodicFlushesWaitWhileEpochsInFlightAreAtTheLimit(t *testing.T) {
	const every, due = 100, 1_000_000
	tests := []struct {
		name      string
		committed uint64
		now       int64
		flushes   bool
	}{
		{"at the limit, past overdue", 10 - maxFlushesInFlight, due + (overdueFlushes+1)*every, false},
		{"below the limit, past overdue", 10 - maxFlushesInFlight + 1, due + (overdueFlushes+1)*every, true},
		{"at the limit, the oldest answer lost", 10 - maxFlushesInFlight, due + commit.LostReplyAfter.Milliseconds(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pipeline{env: &env{commitResults: true, commitEvery: every}, sched: newSourceSchedule(nil), epoch: 10, committed: tt.committed, nextFlush: due, lastFull: 10}
			p.periodicFlush(nil, tt.now) // nothing has changes: a flush that goes out finds nothing to send
			if went := p.nextFlush != due; went != tt.flushes {
				t.Errorf("flushed: %v, want %v", went, tt.flushes)
			}
		})
	}
}
