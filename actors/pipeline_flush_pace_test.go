package actors

import (
	"testing"

	"github.com/edged/edged/actors/commit"
)

// Live, a periodic flush waits while maxFlushesInFlight epochs are uncommitted, also
// past overdueFlushes intervals: the committer holds an epoch whose answer is slow
// with every epoch after it, so epochs must not pile up behind it. Once no commit
// came for commit.LostReplyAfter (an answer lost, not slow), flushes go out again as
// they would without the limit, so the committer sees epochs close and gives it up.
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
		{"at the limit, no commit for LostReplyAfter", 10 - maxFlushesInFlight, due + commit.LostReplyAfter.Milliseconds(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pipeline{env: &env{commitResults: true, commitEvery: every}, sched: newSourceSchedule(nil), epoch: 10,
				committed: tt.committed, committedAt: due, nextFlush: due, lastFull: 10}
			p.periodicFlush(nil, tt.now) // nothing has changes: a flush that goes out finds nothing to send
			if went := p.nextFlush != due; went != tt.flushes {
				t.Errorf("flushed: %v, want %v", went, tt.flushes)
			}
			if tt.flushes && tt.now-due >= commit.LostReplyAfter.Milliseconds() {
				next := p.nextFlush // the next flush goes out once overdue, as without the limit
				p.periodicFlush(nil, next+overdueFlushes*every)
				if p.nextFlush == next {
					t.Error("after LostReplyAfter without a commit, the next overdue flush waited")
				}
			}
		})
	}
}
