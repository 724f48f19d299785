package actors

import "github.com/edged/edged/actors/commit"

// The commit protocol lives in package commit; these are the topology's names for it.
type (
	unit          = commit.Unit
	pendingUnits  = commit.Pending
	ack           = commit.Ack
	inflight      = commit.Inflight
	Flush         = commit.Flush
	Flushed       = commit.Flushed
	EpochClosed   = commit.EpochClosed
	Published     = commit.Published
	committed     = commit.Committed
	commitPending = commit.CommitPending
)
