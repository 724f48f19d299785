package commit

// Flush asks an actor to hand its uncommitted changes to the committer. Scope is nil
// when every actor with changes is asked; a flush for results goes only to the
// sources of the streams in Scope, and from them to the window actors they fed (the
// actors' pipeline_commit_soon.go).
type Flush struct {
	Epoch uint64
	Scope map[string]struct{}
}

// Flushed is one actor's uncommitted changes; the committer applies it atomically.
// A source passes the flush on to the window actors it touched and says how many in
// Extra, so the committer knows to wait for their answers. When it touched one, its
// own reply goes as the flush to that one, which hands it on as Carried with its own:
// one message to the committer fewer per source and commit.
type Flushed struct {
	Epoch uint64
	Units []*Unit // committed in the same batch
	Extra int
	// Merge: the sender, a window actor asked by a scoped flush, was fed by a stream
	// outside the scope since its last flush; the epoch is committed only together
	// with a later full one, which holds that stream's state.
	Merge   bool
	Carried *Flushed // a source's reply, applied before this one
	Flush   *Flush   // the flush a source's reply stands for when a window actor carries it
	one     [1]*Unit // holds Units when there is one (the usual case), sparing an allocation
	main    Unit     // the sender's first main unit of the flush, allocated with its reply
}

// EpochClosed tells the committer how many Flushed replies make up an epoch.
type EpochClosed struct {
	Epoch  uint64
	Expect int
	Full   bool          // every actor with changes was asked (Flush.Scope nil)
	Done   chan struct{} // closed after the epoch is committed, for shutdown
	Uptime int64         // the device's uptime to save with the epoch, if not 0
	At     int64         // processing time (ms) it closed at: times lost replies
}

// Published reports that the sink delivered results from a device's result outbox.
type Published struct{ Seqs []uint64 }

// Committed tells the pipeline that the committer tried to commit every epoch up to
// Epoch, so a commit wanted meanwhile can start.
type Committed struct{ Epoch uint64 }

// CommitPending tells the pipeline that the committer holds deliveries to commit: the
// pipeline flushes only when something changed, and these are a change.
type CommitPending struct{}
