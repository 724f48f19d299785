package actors

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// bigBudget is the memory budget from which edged keeps Go's default GOGC of 100:
// twice the default limits.memory.
const bigBudget = 512 << 20

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
// is live before the next collection. Go's 100 lets a gateway's live heap double;
// up to half of bigBudget, the default budget included, edged lets it grow by half,
// rising to 100 at bigBudget: a lower peak RSS for a little more CPU per message.
// Where the cores are busy with other work the extra collections cost result
// latency, so a gateway short of CPU rather than memory sets limits.memory to
// 512MiB or GOGC=100.
func gcPercent(budget int64) int {
	return int(min(max(budget*100/bigBudget, 50), 100))
}
