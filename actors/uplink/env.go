package uplink

import (
	"log/slog"
	"sync/atomic"

	"github.com/edged/edged/persist"
)

// env is what the upstream actor takes from the runtime it runs in.
type env struct {
	store   *persist.Store
	log     *slog.Logger
	metrics *Metrics
	// busy is set while the actor holds records to send, which needs a tick every
	// few milliseconds (batches, the rate); wake asks the runtime for ticks when it
	// turns busy. Idle, it needs a tick a second, for its metrics.
	busy *atomic.Bool
	wake func()
}
