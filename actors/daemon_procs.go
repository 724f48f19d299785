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
// runtime's default. GOMAXPROCS, when set, is the operator's word and wins.
//
// On every P the governor looks at the rate every procsEvery. On one P it does not
// wake at all: intake signals it every procsBurst messages (Daemon.busy), and the
// time those took says whether a burst has come, so a gateway at rest stays asleep
// and a burst has every core after procsBurst messages.
const (
	procsEvery = 2 * time.Second
	procsLow   = 2_000 // readings a second
	procsHigh  = 5_000
	procsQuiet = 2    // looks below procsLow before edged goes down to one P
	procsBurst = 1024 // messages between intake's signals
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
		var now time.Time
		if g.one {
			select {
			case <-ctx.Done():
				return
			case <-d.busy:
				now = time.Now()
			}
			if d.received.Load()-last < procsBurst {
				continue // the count since going down to one P: not a whole burst yet
			}
		} else {
			select {
			case <-ctx.Done():
				return
			case now = <-t.C:
			}
		}
		n := d.received.Load()
		one, change := g.look(n-last, now.Sub(lastAt))
		last, lastAt = n, now
		if !change {
			continue
		}
		if one {
			runtime.GOMAXPROCS(1)
			t.Stop()
			select { // a signal from before: the next one counts from now
			case <-d.busy:
			default:
			}
		} else {
			runtime.SetDefaultGOMAXPROCS()
			t.Reset(procsEvery)
		}
		d.log.Debug("scheduler Ps", "one", one)
	}
}
