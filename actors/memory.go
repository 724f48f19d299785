package actors

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// applyMemoryLimit makes limits.memory Go's soft memory limit: near it the runtime
// collects harder instead of growing the heap. GOMEMLIMIT, when set, is the
// operator's word for this process and wins; 0 leaves the runtime alone.
func applyMemoryLimit(limit int64, log *slog.Logger) {
	if env := os.Getenv("GOMEMLIMIT"); env != "" {
		log.Info("GOMEMLIMIT is set: it, not limits.memory, is Go's soft memory limit", "GOMEMLIMIT", env)
		return
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
}
