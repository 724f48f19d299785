package commit

import (
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/actors/workers"
	"github.com/edged/edged/persist"
)

// Deps is what a committer needs of the daemon it runs in.
type Deps struct {
	Store         *persist.Store
	Log           *slog.Logger
	Commits       prometheus.Counter
	CommitErrors  prometheus.Counter
	CommitSeconds prometheus.Histogram
	Sink          *actor.PID // publishes committed results
	Late          *actor.PID // ships committed upstream records; nil: none
	Failures      *Failures  // devices whose last commit failed: health reports why
	// TellCommitted: the pipeline holds the commits a result wants while one is in
	// flight, so the committer tells it (Committed) once it tried each.
	TellCommitted bool
	// IntakeBlocked reports a full upstream outbox under policy block: acks are held
	// so the broker stops sending. nil: never.
	IntakeBlocked func() bool
	// Dispatch runs the committer's mailbox: a commit waits for the disk off the
	// live workers (workers.Pool.Blocking).
	Dispatch actor.Dispatcher
}

func (d *Deps) blocked() bool { return d.IntakeBlocked != nil && d.IntakeBlocked() }

// blocking runs f, which waits for the disk, so that live workers do not wait for it.
func (d *Deps) blocking(f func()) {
	if w, ok := d.Dispatch.(*workers.Pool); ok {
		w.Blocking(f)
		return
	}
	f()
}
