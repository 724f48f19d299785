package actors

import (
	"context"
	"os"
	"runtime"
	"time"
)

// At a few hundred readings a second most of edged's CPU per reading is the Go
// scheduler, not edged: a reading crosses four goroutines (the client's reader, the
// router, the mailboxes of its source and of its window actor), and with more than
// one P each crossing that finds a P idle also wakes a thread to look for more work,
// which finds none and sleeps again. One P takes tens of thousands of readings a
// second, so below procsLow edged runs on one; above procsHigh it goes back to the
// runtime's default, so a burst has every core within procsEvery. GOMAXPROCS, when
// set, is the operator's word and wins.
const (
	procsEvery = 2 * time.Second
	procsLow   = 2_000 // readings a second
	procsHigh  = 5_000
	procsQuiet = 2 // looks below procsLow before edged goes down to one P
)

// procsGovernor decides from the readings taken between its looks whether edged
// runs on one P.
type procsGovernor struct {
	one   bool // edged runs on one P
	quiet int  // consecutive looks below procsLow
}

// look takes the readings taken over elapsed and returns whether edged should run
// on one P, and whether that is a change.
func (g *procsGovernor) look(readings uint64, elapsed time.Duration) (one, change bool) {
	if elapsed <= 0 {
		return g.one, false
	}
	rate := float64(readings) / elapsed.Seconds()
	switch {
	case g.one:
		if rate > procsHigh {
			g.one = false
			return false, true
		}
	case rate < procsLow:
		if g.quiet++; g.quiet >= procsQuiet {
			g.one, g.quiet = true, 0
			return true, true
		}
	default:
		g.quiet = 0
	}
	return g.one, false
}

// GovernProcs runs edged on one P while it takes fewer than procsLow readings a
// second, until ctx is done. It does nothing where GOMAXPROCS is set or there is one
// P anyway. It changes the whole process, so only the daemon's command runs it.
func (d *Daemon) GovernProcs(ctx context.Context) {
	if os.Getenv("GOMAXPROCS") != "" || runtime.GOMAXPROCS(0) == 1 {
		return
	}
	var g procsGovernor
	last, lastAt := d.received.Load(), time.Now()
	t := time.NewTicker(procsEvery)
	defer t.Stop()
	defer func() {
		if g.one {
			runtime.SetDefaultGOMAXPROCS()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			n := d.received.Load()
			if one, change := g.look(n-last, now.Sub(lastAt)); change {
				if one {
					runtime.GOMAXPROCS(1)
				} else {
					runtime.SetDefaultGOMAXPROCS()
				}
				d.log.Debug("scheduler Ps", "one", one, "readings_per_s", int(float64(n-last)/now.Sub(lastAt).Seconds()))
			}
			last, lastAt = n, now
		}
	}
}
