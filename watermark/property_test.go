package watermark

import (
	"flag"
	"os"
	"testing"

	"pgregory.net/rapid"
)

// rapidDefaults makes the property tests run at least 300 cases from a fixed
// seed unless -rapid.checks / -rapid.seed (or RAPID_CHECKS / RAPID_SEED) say
// otherwise, and logs both so any run can be repeated.
func rapidDefaults(t *testing.T) {
	t.Helper()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	defaults := []struct{ flag, env, value string }{
		{"rapid.checks", "RAPID_CHECKS", "300"},
		{"rapid.seed", "RAPID_SEED", "20250601"},
	}
	for _, d := range defaults {
		if _, inEnv := os.LookupEnv(d.env); !set[d.flag] && !inEnv {
			if err := flag.Set(d.flag, d.value); err != nil {
				t.Fatalf("setting -%s: %v", d.flag, err)
			}
		}
	}
	t.Logf("rapid: -rapid.checks=%s -rapid.seed=%s", flag.Lookup("rapid.checks").Value, flag.Lookup("rapid.seed").Value)
}

// genModel is what the property test knows about a generator from the
// outside: what it fed it and what it was told.
type genModel struct {
	cfg          Config
	seen         bool
	max          int64
	lastAccepted int64 // processing time; the skew guard measures from it
	// Flink's idleness timer, as seen from the outside: a record since the
	// last check, and when the first check without one came (counting).
	activity     bool
	counting     bool
	quietFrom    int64
	firstArrival int64
	reportedIdle bool // the last Tick said idle and no record came since
	everIdle     bool
	lastWm       int64
	marked       bool
	highestMark  int64
	firstMarkAt  int64
}

func TestGeneratorProperties(t *testing.T) {
	rapidDefaults(t)
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		b := cfg.bound()
		g := NewGenerator(cfg)
		m := genModel{cfg: cfg, lastWm: Min}
		now := rapid.Int64Range(0, 1_000_000).Draw(t, "start")
		steps := rapid.IntRange(1, 80).Draw(t, "steps")
		for range steps {
			now += rapid.Int64Range(0, 3_000).Draw(t, "dt")
			switch rapid.IntRange(0, 9).Draw(t, "action") {
			case 0, 1, 2, 3: // a record, out of order around the model's max
				ts := rapid.Int64Range(900_000, 1_100_000).Draw(t, "ts")
				if m.seen {
					ts = m.max + rapid.Int64Range(-20_000, 5_000).Draw(t, "offset")
				}
				future := cfg.MaxFutureSkew > 0 && m.seen && ts > m.max+(now-m.lastAccepted)+cfg.MaxFutureSkew
				want := Accepted
				switch {
				case future:
					want = Future
				case m.reportedIdle:
					want = Reactivated
				}
				if got := g.Observe(ts, now); got != want {
					t.Fatalf("Observe(%d, %d) = %v, want %v", ts, now, got, want)
				}
				if future {
					continue
				}
				if !m.seen {
					m.firstArrival, m.max = now, ts
				}
				m.seen, m.max, m.lastAccepted, m.activity, m.reportedIdle = true, max(m.max, ts), now, true, false
			case 4:
				if cfg.Strategy != Punctuated {
					continue // marks would break the bounds checked below
				}
				wm := rapid.Int64Range(800_000, 1_100_000).Draw(t, "mark")
				if !m.marked || wm > m.highestMark {
					if !m.marked {
						m.firstMarkAt = now
					}
					m.marked, m.highestMark = true, wm
				}
				g.Mark(wm, now)
			case 5:
				st := g.State()
				g = NewGenerator(cfg)
				g.Restore(st, now)
				m.activity, m.counting = false, false
			default:
				s, _ := g.Tick(now)
				checkTick(t, &m, s, now, b)
			}
		}
	})
}

// drawConfig draws a generator config of every strategy, idle mode and a few
// idle timeouts and skews.
func drawConfig(t *rapid.T) Config {
	return Config{
		Strategy:          Strategy(rapid.IntRange(0, 2).Draw(t, "strategy")),
		MaxOutOfOrderness: rapid.Int64Range(0, 10_000).Draw(t, "bound"),
		IdleTimeout:       rapid.SampledFrom([]int64{0, 1, 500, 5_000}).Draw(t, "idleTimeout"),
		IdleMode:          IdleMode(rapid.IntRange(0, 1).Draw(t, "idleMode")),
		MaxFutureSkew:     rapid.SampledFrom([]int64{0, 1, 2_000}).Draw(t, "skew"),
	}
}

func checkTick(t *rapid.T, m *genModel, s Status, now, b int64) {
	if s.Watermark < m.lastWm {
		t.Fatalf("watermark went back from %d to %d at %d", m.lastWm, s.Watermark, now)
	}
	m.lastWm = s.Watermark
	wantIdle := m.reportedIdle
	if m.cfg.IdleTimeout > 0 && !wantIdle {
		switch {
		case m.activity:
			m.activity, m.counting = false, false
		case !m.counting:
			m.counting, m.quietFrom = true, now
		default:
			wantIdle = now-m.quietFrom > m.cfg.IdleTimeout
		}
	}
	if s.Idle != wantIdle {
		t.Fatalf("idle = %v at %d, want %v (quiet since the check at %d, timeout %d)", s.Idle, now, wantIdle, m.quietFrom, m.cfg.IdleTimeout)
	}
	m.reportedIdle = s.Idle
	m.everIdle = m.everIdle || s.Idle
	extrapolates := m.everIdle && m.cfg.IdleMode == Advance
	if m.cfg.Strategy == Punctuated {
		switch {
		case !m.marked && s.Watermark != Min:
			t.Fatalf("punctuated watermark %d before any mark", s.Watermark)
		case m.marked && s.Watermark < m.highestMark:
			t.Fatalf("punctuated watermark %d below the highest mark %d", s.Watermark, m.highestMark)
		case m.marked && !extrapolates && s.Watermark != m.highestMark:
			t.Fatalf("punctuated watermark %d, want the highest mark %d", s.Watermark, m.highestMark)
		case m.marked && s.Watermark > m.highestMark+(now-m.firstMarkAt):
			t.Fatalf("punctuated watermark %d ran ahead of mark %d plus %d ms", s.Watermark, m.highestMark, now-m.firstMarkAt)
		}
		return
	}
	if !m.seen {
		if s.Watermark != Min {
			t.Fatalf("watermark %d before the first record", s.Watermark)
		}
		return
	}
	exact := m.max - b - 1
	switch {
	case s.Watermark < exact:
		t.Fatalf("watermark %d below max %d - B %d - 1", s.Watermark, m.max, b)
	case !extrapolates && s.Watermark != exact:
		t.Fatalf("watermark %d, want max %d - B %d - 1 = %d", s.Watermark, m.max, b, exact)
	case s.Watermark > exact+(now-m.firstArrival):
		t.Fatalf("watermark %d ran ahead of max %d - B %d - 1 plus %d ms", s.Watermark, m.max, b, now-m.firstArrival)
	}
}

func TestValveProperties(t *testing.T) {
	rapidDefaults(t)
	rapid.Check(t, func(t *rapid.T) {
		inputs := []string{"a", "b", "c", "d", "e"}[:rapid.IntRange(1, 5).Draw(t, "inputs")]
		v := NewValve()
		reported := map[string]Status{} // highest watermark and latest idleness per input
		last := v.Status()
		steps := rapid.IntRange(1, 80).Draw(t, "steps")
		for range steps {
			if rapid.IntRange(0, 9).Draw(t, "restart") == 0 {
				r := NewValve()
				r.Restore(v.State())
				if r.Status().Watermark > last.Watermark || r.Status().Idle != last.Idle {
					t.Fatalf("restored %v from %v", r.Status(), last)
				}
				v, last = r, r.Status()
			}
			in := rapid.SampledFrom(inputs).Draw(t, "input")
			s := Status{
				Watermark: rapid.Int64Range(0, 10_000).Draw(t, "wm"),
				Idle:      rapid.Bool().Draw(t, "idle"),
			}
			prev := reported[in]
			reported[in] = Status{Watermark: max(prev.Watermark, s.Watermark), Idle: s.Idle}
			out, changed := v.Update(in, s)
			if out.Watermark < last.Watermark {
				t.Fatalf("output went back from %d to %d", last.Watermark, out.Watermark)
			}
			if changed != (out != last) {
				t.Fatalf("changed = %v going from %v to %v", changed, last, out)
			}
			allIdle, highest := true, Min
			for _, st := range reported {
				allIdle = allIdle && st.Idle
				highest = max(highest, st.Watermark)
			}
			if out.Idle != allIdle {
				t.Fatalf("output idle = %v, want %v (inputs %v)", out.Idle, allIdle, reported)
			}
			if out.Watermark > highest {
				t.Fatalf("output %d above every input (highest %d)", out.Watermark, highest)
			}
			if allIdle && out.Watermark != highest {
				t.Fatalf("all idle: output %d, want the highest input %d", out.Watermark, highest)
			}
			last = out
		}
	})
}
