package actors

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// bigBudget is the memory budget from which edged keeps Go's default GOGC of 100:
// the default limits.memory.
const bigBudget = 256 << 20

// applyMemoryBudget makes limits.memory Go's soft memory limit, near which the
// runtime collects harder instead of growing the heap, and sets the collector's
// pace from it (gcPercent). GOMEMLIMIT and GOGC, when set, are the operator's word
// for this process and win; a budget of 0 leaves the runtime alone.
func applyMemoryBudget(budget int64, log *slog.Logger) {
	if budget <= 0 {
		return
	}
	if env := os.Getenv("GOMEMLIMIT"); env != "" {
		log.Info("GOMEMLIMIT is set: it, not limits.memory, is Go's soft memory limit", "GOMEMLIMIT", env)
	} else {
		debug.SetMemoryLimit(budget)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent(budget))
	}
}

// gcPercent is the GOGC for a memory budget: how far the heap may grow past what
// is live before the next collection. Go's 100 lets a gateway's 30 MiB of live heap
// double; up to half of bigBudget edged lets it grow by half, rising to 100 at
// bigBudget, so only an operator who chose a small budget pays for it.
// Measured at 1,000 sensors (make bench's live trials): peak RSS 84–98 MiB at 100,
// 67–82 at 50, 62–76 at 25; but at 50 the result latency at 10,000 msg/s doubled
// (p50 81–89 ms against 32–47, p99 163–222 against 70–112) and CPU per message
// rose ~6 %, too much to pay by default for 15–20 MiB.
func gcPercent(budget int64) int {
	return int(min(max(budget*100/bigBudget, 50), 100))
}
