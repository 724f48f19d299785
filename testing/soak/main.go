// Command soak is `make soak`: a simulated week of a site replayed into edged
// day by day, to show whether edged can run for months. The site has fixed
// sensors (a tumbling window each; some go silent for hours every day and come
// back) and tags that come and go for good, a cohort an hour, each on its own
// topic with a session window; some readings arrive late within the allowed
// lateness and some past it. Each day is one `edged replay --data DIR
// --keep-open` of the real binary, a child process, so each day is a restart on
// the same durable state; a last replay with no input closes every window.
//
// Per day it prints the replay's readings/s and CPU per reading, the child's
// peak RSS, the data dir's size after the day, the metric series edged exposes
// (replay --metrics), the readings refused (late output with reason key_limit)
// and whether the results are exact against testing/oracle: every window whose
// cleanup the watermark passed that day, compared with the oracle's
// recomputation and its final table under the README's consumer rule. Then the
// verdict: the last day within 1.2× of the first in CPU per
// reading, peak RSS and data-dir size, nothing refused, every result exact.
// The exit status is 1 if it fails.
//
// The feeds are deterministic: the seeds are printed, and the same flags give
// the same week. Run it from the repository (it builds ./cmd/edged unless
// -edged names a binary): `make soak`, or `go run ./testing/soak -h` for the
// sizes. It imports what it checks against; nothing imports it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

func main() {
	var o options
	o.register(flag.CommandLine)
	flag.Parse()
	pass, err := run(&o, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	if !pass {
		os.Exit(1)
	}
}

// run soaks the site o describes and prints the table and the verdict to out;
// mismatches and edged's complaints go to log.
func run(o *options, out, log io.Writer) (bool, error) {
	if err := o.validate(); err != nil {
		return false, err
	}
	dir := o.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "edged-soak-")
		if err != nil {
			return false, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	bin := o.edged
	if bin == "" {
		bin = filepath.Join(dir, "edged")
		if err := buildEdged(bin); err != nil {
			return false, err
		}
	}
	s := o.site()
	fmt.Fprintln(out, describe(o, s))
	fmt.Fprintln(out)
	fmt.Fprintln(out, tableHeader)
	begin := time.Now()
	rows, err := soak(s, bin, dir, log, func(r dayRow) { printRow(out, r) })
	if err != nil {
		return false, err
	}
	fmt.Fprintf(out, "\n(%s in all)\n", time.Since(begin).Round(time.Second))
	v := judge(rows)
	v.print(out)
	return v.pass, nil
}

// buildEdged builds cmd/edged from the module the soak runs in, as `go build`
// would for a release (with its profile-guided optimization).
func buildEdged(bin string) error {
	cmd := exec.Command("go", "build", "-o", bin, "github.com/edged/edged/cmd/edged")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building edged (run the soak from the repository, or pass -edged): %v\n%s", err, out)
	}
	return nil
}

// describe says what the soak replays, seeds included, in a line or two.
func describe(o *options, s *site) string {
	perDay := func(every time.Duration, n int) int {
		if n == 0 {
			return 0
		}
		return int(24 * time.Hour / every * time.Duration(n))
	}
	d := fmt.Sprintf("soak: %d days from %s; %d sensors every %s (%d silent %s a day), %d tags live every %s (a cohort every %s, %d new tags a day)",
		o.days, time.UnixMilli(s.start).UTC().Format(time.RFC3339), o.sensors, o.sensorEvery, min(o.silent, o.sensors), o.silentFor,
		o.tags, o.tagEvery, o.cohortEvery, int(24*time.Hour/o.cohortEvery)*o.tags)
	d += fmt.Sprintf(", about %d readings a day; late %.3g, too late %.3g; limits.max_keys_per_window %d; seeds %d (sensors) and %d (tags)",
		perDay(o.sensorEvery, o.sensors)+perDay(o.tagEvery, o.tags), o.late, o.tooLate, o.maxKeys, o.seed, o.seed+1)
	return d
}
