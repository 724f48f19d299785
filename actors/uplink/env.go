package uplink

import (
	"log/slog"

	"github.com/edged/edged/persist"
)

// env is what the upstream actor takes from the runtime it runs in.
type env struct {
	store   *persist.Store
	log     *slog.Logger
	metrics *Metrics
}
