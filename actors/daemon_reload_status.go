package actors

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/configs"
)

// reloadTimes is how long a reload took and how long of it the messages of the
// devices replaced were held.
type reloadTimes struct{ took, held time.Duration }

// Reload outcomes, the result label of edged_config_reloads_total.
const (
	reloadApplied      = "applied"
	reloadRefused      = "refused"
	reloadNeedsRestart = "needs_restart"
)

// reloadState keeps the outcome of reloads for /status and counts them.
type reloadState struct {
	total *prometheus.CounterVec // result

	mu     sync.Mutex
	status status.ConfigStatus
}

func newReloadState(reg prometheus.Registerer, devices int) *reloadState {
	total := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "edged_config_reloads_total",
		Help: "Config reloads (SIGHUP, a change in devices_dir, or a fleet update) by result: applied, refused or needs_restart.",
	}, []string{"result"})
	reg.MustRegister(total)
	for _, r := range []string{reloadApplied, reloadRefused, reloadNeedsRestart} {
		total.WithLabelValues(r) // every result shows as 0 before the first
	}
	return &reloadState{total: total, status: status.ConfigStatus{Generation: 1, AppliedAt: time.Now().UnixMilli(), Devices: devices}}
}

// record counts, logs and keeps one reload's outcome.
func (r *reloadState) record(log *slog.Logger, diff *configs.DeviceDiff, err error, restart []string, times reloadTimes) {
	result := reloadApplied
	switch {
	case errors.Is(err, ErrNeedsRestart):
		result = reloadNeedsRestart
	case err != nil:
		result = reloadRefused
	}
	r.total.WithLabelValues(result).Inc()
	now := time.Now().UnixMilli()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status.LastReload, r.status.LastReloadAt = result, now
	if err != nil {
		r.status.LastError, r.status.NeedsRestart = err.Error(), restart
		log.Error("config not applied; the running config stays", "result", result, "err", err)
		return
	}
	r.status.LastError, r.status.NeedsRestart = "", nil
	if diff.Empty() {
		log.Info("config reloaded; nothing changed")
		return
	}
	r.status.Generation++
	r.status.AppliedAt = now
	r.status.Devices = len(diff.Added) + len(diff.Changed) + len(diff.Unchanged)
	r.status.LastTookMS, r.status.LastHeldMS = times.took.Milliseconds(), times.held.Milliseconds()
	log.Info("config applied", "generation", r.status.Generation, "added", diff.Added, "removed", diff.Removed,
		"changed", diff.Changed, "unchanged", len(diff.Unchanged), "took", times.took.Round(time.Millisecond),
		"messages_held", times.held.Round(time.Millisecond))
	for _, id := range diff.Changed {
		c := diff.Devices[id]
		log.Info("device changed", "device", id, "streams_added", c.Streams.Added, "streams_removed", c.Streams.Removed,
			"streams_changed", c.Streams.Changed, "windows_added", c.Windows.Added, "windows_removed", c.Windows.Removed,
			"windows_changed", c.Windows.Changed, "windows_started_empty", c.Discard)
	}
}

func (r *reloadState) snapshot() *status.ConfigStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.status
	return &st
}
