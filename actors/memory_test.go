package actors

import (
	"bytes"
	"log/slog"
	"math"
	"runtime/debug"
	"testing"
)

// limits.memory becomes Go's soft memory limit, unless the operator set GOMEMLIMIT.
func TestLimitsMemoryIsTheSoftMemoryLimitUnlessGOMEMLIMITIsSet(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	log := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))

	t.Setenv("GOMEMLIMIT", "")
	debug.SetMemoryLimit(math.MaxInt64)
	applyMemoryLimit(256<<20, log)
	if got := debug.SetMemoryLimit(-1); got != 256<<20 {
		t.Errorf("soft memory limit %d after limits.memory 256MiB", got)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	applyMemoryLimit(0, log)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limits.memory 0 changed the soft memory limit to %d", got)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(1 << 30)
	applyMemoryLimit(256<<20, log)
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("limits.memory overrode GOMEMLIMIT: soft limit %d", got)
	}
}
