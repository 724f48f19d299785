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
	applyMemoryBudget(256<<20, log)
	if got := debug.SetMemoryLimit(-1); got != 256<<20 {
		t.Errorf("soft memory limit %d after limits.memory 256MiB", got)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	applyMemoryBudget(0, log)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limits.memory 0 changed the soft memory limit to %d", got)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(1 << 30)
	applyMemoryBudget(256<<20, log)
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("limits.memory overrode GOMEMLIMIT: soft limit %d", got)
	}
}

// A small budget paces the collector tighter than Go's GOGC of 100, unless the
// operator set GOGC; from bigBudget up it is Go's own.
func TestLimitsMemoryPacesTheCollectorUnlessGOGCIsSet(t *testing.T) {
	before := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(before); debug.SetMemoryLimit(limit) })
	log := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	t.Setenv("GOMEMLIMIT", "")

	t.Setenv("GOGC", "")
	for _, c := range []struct {
		budget int64
		gogc   int
	}{{32 << 20, 50}, {128 << 20, 50}, {256 << 20, 50}, {384 << 20, 75}, {bigBudget, 100}, {4 << 30, 100}} {
		applyMemoryBudget(c.budget, log)
		if got := debug.SetGCPercent(100); got != c.gogc {
			t.Errorf("limits.memory %d: GOGC %d, want %d", c.budget, got, c.gogc)
		}
	}

	t.Setenv("GOGC", "200")
	debug.SetGCPercent(200)
	applyMemoryBudget(256<<20, log)
	if got := debug.SetGCPercent(100); got != 200 {
		t.Errorf("limits.memory overrode GOGC: %d", got)
	}
}
