package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// goBench is what actors' Go benchmarks report: BenchmarkReplay's allocations
// per event and BenchmarkHeapPerIdleKey's live heap per idle sensor.
type goBench struct {
	allocsPerEvent float64
	heapPerKey     float64 // bytes, with count and sum: the target's "no pNN"
	heapPerKeyP95  float64 // bytes, with make bench's aggregates
	err            error
}

// runGoBench runs both benchmarks once (`go test -bench`, from the module
// root, which `make bench` runs in), so the table's numbers come from the
// benchmarks themselves.
func runGoBench() *goBench {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^(BenchmarkReplay|BenchmarkHeapPerIdleKey)$",
		"-benchtime", "1x", "./actors/")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return &goBench{err: fmt.Errorf("go test -bench in actors: %w", err)}
	}
	g := &goBench{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch {
		case strings.HasPrefix(f[0], "BenchmarkReplay"):
			g.allocsPerEvent = metric(f, "allocs/event")
		case strings.HasPrefix(f[0], "BenchmarkHeapPerIdleKey/count_sum"):
			g.heapPerKey = metric(f, "B/key")
		case strings.HasPrefix(f[0], "BenchmarkHeapPerIdleKey/count_avg_min_max_p95"):
			g.heapPerKeyP95 = metric(f, "B/key")
		}
	}
	if g.allocsPerEvent == 0 || g.heapPerKey == 0 || g.heapPerKeyP95 == 0 {
		g.err = fmt.Errorf("go test -bench printed no allocs/event or B/key:\n%s", out.String())
	}
	return g
}

// metric is the value before unit on a benchmark line, or 0.
func metric(fields []string, unit string) float64 {
	for i := 1; i < len(fields); i++ {
		if fields[i] == unit {
			v, _ := strconv.ParseFloat(fields[i-1], 64)
			return v
		}
	}
	return 0
}
