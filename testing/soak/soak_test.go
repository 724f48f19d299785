package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// edged is cmd/edged built once for the package's tests (without the race
// detector: the soak measures edged, the checker is what runs under -race).
var edged struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if edged.dir != "" {
		os.RemoveAll(edged.dir)
	}
	os.Exit(code)
}

func edgedBinary(t testing.TB) string {
	t.Helper()
	edged.once.Do(func() {
		if edged.dir, edged.err = os.MkdirTemp("", "soak-edged-"); edged.err != nil {
			return
		}
		edged.bin = filepath.Join(edged.dir, "edged")
		edged.err = buildEdged(edged.bin)
	})
	if edged.err != nil {
		t.Fatal(edged.err)
	}
	return edged.bin
}

// oneDay is the soak's one-day version: a day of a small site whose tags churn
// past limits.max_keys_per_window (96 tags a day, at most 8 of them live or
// with an open session, against a limit of 40), on per-tag topics.
func oneDay() options {
	return options{
		days: 1, seed: 1, sensors: 5, sensorEvery: time.Minute, silent: 1, silentFor: 4 * time.Hour,
		tags: 4, cohortEvery: time.Hour, tagEvery: time.Minute, late: 0.01, tooLate: 0.002,
		maxKeys: 40, perTopic: true,
	}
}

// TestOneSoakDayIsExactAndRefusesNothing runs the soak's core on a day of a
// small site: every window is checked against the oracle, and tags that come
// and go must never be refused, however many a day brings.
func TestOneSoakDayIsExactAndRefusesNothing(t *testing.T) {
	o := oneDay()
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	t.Logf("seeds %d and %d", o.seed, o.seed+1)
	var log bytes.Buffer
	rows, err := soak(o.site(), edgedBinary(t), t.TempDir(), &log, func(r dayRow) {
		var b strings.Builder
		printRow(&b, r)
		t.Log(strings.TrimSpace(b.String()))
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want the day and the closing replay", len(rows))
	}
	day, closing := rows[0], rows[1]
	// What the soak itself must show, with or without passivation.
	if day.readings < 10_000 || day.check.settled < 1000 || day.check.lateOut == 0 || day.run.series == 0 || day.run.disk == 0 || day.run.peakRSS == 0 {
		t.Errorf("the day replayed %d readings, checked %d windows, saw %d late records, %d series, a %d-byte data dir and a %d-byte peak RSS: the soak measures nothing",
			day.readings, day.check.settled, day.check.lateOut, day.run.series, day.run.disk, day.run.peakRSS)
	}
	if closing.open != 0 || closing.readings != 0 {
		t.Errorf("after the closing replay the oracle holds %d open windows and it replayed %d readings, want none", closing.open, closing.readings)
	}
	// A tag gone for good does not count against limits.max_keys_per_window
	// (40 here, against 96 tags a day).
	for _, r := range rows {
		if r.check.refused != 0 || r.check.mismatches != 0 {
			t.Errorf("day %s: %d readings refused (key_limit), %d mismatches against the oracle; want none", r.name(), r.check.refused, r.check.mismatches)
		}
	}
	if t.Failed() {
		t.Logf("the checker's log:\n%s", log.String())
	}
}

func TestJudgeComparesTheLastDayWithTheFirst(t *testing.T) {
	day := func(n int, cpu time.Duration, rss, disk int64) dayRow {
		return dayRow{day: n, readings: 1000, run: replayRun{cpu: cpu, peakRSS: rss, disk: disk}}
	}
	cases := []struct {
		name  string
		rows  []dayRow
		pass  bool
		fails string
	}{
		{"flat", []dayRow{day(1, time.Second, 100, 100), day(2, 2*time.Second, 500, 500), day(3, time.Second, 110, 115)}, true, ""},
		{"slower", []dayRow{day(1, time.Second, 100, 100), day(2, 1300*time.Millisecond, 100, 100)}, false, "CPU per reading"},
		{"bigger", []dayRow{day(1, time.Second, 100, 100), day(2, time.Second, 100, 121)}, false, "data dir"},
		{"refused on closing", []dayRow{day(1, time.Second, 100, 100), {check: dayCheck{refused: 1}}}, false, "refused"},
		{"inexact", []dayRow{day(1, time.Second, 100, 100), {day: 2, readings: 1000, run: replayRun{cpu: time.Second, peakRSS: 100, disk: 100}, check: dayCheck{mismatches: 3}}}, false, "3 mismatches"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := judge(c.rows)
			var b strings.Builder
			v.print(&b)
			if v.pass != c.pass || c.fails != "" && !strings.Contains(failing(b.String()), c.fails) {
				t.Errorf("verdict pass=%v, want %v with a failure about %q:\n%s", v.pass, c.pass, c.fails, b.String())
			}
		})
	}
}

// failing returns the FAIL lines of a printed verdict.
func failing(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "FAIL ") {
			out = append(out, l)
		}
	}
	return fmt.Sprint(out)
}
