package main

import (
	"fmt"
	"io"
)

// The soak passes with the last day within maxGrowth of the first in CPU
// per reading, peak RSS and data-dir size.
const maxGrowth = 1.2

// tableHeader is the soak table's header, in markdown.
const tableHeader = `| day | readings | wall s | readings/s | CPU µs/reading | peak RSS MiB | data dir MiB | series | refused | late out | windows checked | open after | exact |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|`

// name is the row's day number, or "close" for the closing replay.
func (r dayRow) name() string {
	if r.day == 0 {
		return "close"
	}
	return fmt.Sprint(r.day)
}

func printRow(w io.Writer, r dayRow) {
	rate, perReading := "", ""
	if r.readings > 0 {
		rate = fmt.Sprintf("%.0f", float64(r.readings)/r.run.wall.Seconds())
		perReading = fmt.Sprintf("%.1f", cpuPerReading(r))
	}
	exact := "yes"
	if r.check.mismatches > 0 {
		exact = fmt.Sprintf("no (%d)", r.check.mismatches)
	}
	fmt.Fprintf(w, "| %s | %d | %.1f | %s | %s | %.1f | %.1f | %d | %d | %d | %d | %d | %s |\n",
		r.name(), r.readings, r.run.wall.Seconds(), rate, perReading, mib(r.run.peakRSS), mib(r.run.disk),
		r.run.series, r.check.refused, r.check.lateOut, r.check.settled, r.open, exact)
}

// cpuPerReading is the child's CPU time per reading, µs.
func cpuPerReading(r dayRow) float64 { return r.run.cpu.Seconds() * 1e6 / float64(r.readings) }

// verdict is the soak's acceptance over its rows.
type verdict struct {
	lines []string
	pass  bool
}

// judge compares the last day with the first, and sums refusals and
// mismatches over every row (the closing replay's included).
func judge(rows []dayRow) verdict {
	v := verdict{pass: true}
	check := func(ok bool, format string, a ...any) {
		mark := "ok  "
		if !ok {
			mark, v.pass = "FAIL", false
		}
		v.lines = append(v.lines, mark+" "+fmt.Sprintf(format, a...))
	}
	var days []dayRow
	refused, mismatches := 0, 0
	for _, r := range rows {
		refused += r.check.refused
		mismatches += r.check.mismatches
		if r.day > 0 {
			days = append(days, r)
		}
	}
	if len(days) >= 2 {
		first, last := days[0], days[len(days)-1]
		ratio := func(name string, a, b float64, unit string) {
			check(b <= maxGrowth*a, "%s: day %d %.1f%s, day %d %.1f%s (%.2f×, at most %.1f×)", name, last.day, b, unit, first.day, a, unit, b/a, maxGrowth)
		}
		ratio("CPU per reading", cpuPerReading(first), cpuPerReading(last), " µs")
		ratio("peak RSS", mib(first.run.peakRSS), mib(last.run.peakRSS), " MiB")
		ratio("data dir", mib(first.run.disk), mib(last.run.disk), " MiB")
	}
	check(refused == 0, "refused readings (late output, reason key_limit): %d", refused)
	check(mismatches == 0, "results against testing/oracle: %d mismatches", mismatches)
	return v
}

func (v verdict) print(w io.Writer) {
	for _, l := range v.lines {
		fmt.Fprintln(w, l)
	}
	if v.pass {
		fmt.Fprintln(w, "PASS")
	} else {
		fmt.Fprintln(w, "FAIL")
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
