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
// is live before the next collection. Go's 100 lets a gateway's 20–30 MiB of live
// heap double; up to half of bigBudget, the default budget included, edged lets it
// grow by half, rising to 100 at bigBudget. Measured run by run with -only rss and
// -only cpu on a quiet 2-core VM: peak RSS 58–61 against 69–73 MiB (QoS 0 at
// 60,000 msg/s), 75–78 against 83–86 (QoS 1 at 30,000), 139–143 against 153–163
// (10,000 open windows), for 3–7 % more CPU per message; result latency at 10,000
// msg/s p99 8–26 ms at 50 and 8–13 at 100. On a machine whose cores were busy with
// other work, 50 had doubled that latency (p50 81–89 against 32–47 ms): a gateway
// short of CPU rather than memory sets limits.memory to 512MiB or GOGC=100.
func gcPercent(budget int64) int {
	return int(min(max(budget*100/bigBudget, 50), 100))
}
