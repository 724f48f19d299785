package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// twoWindows is a sensor's feed whose first window [0,10000) the watermark
// passed (a reading at 10,500) and whose second did not.
func twoWindows() *sent {
	t0 := time.Unix(0, 0)
	s := &sent{marks: map[string][]mark{}}
	for _, r := range []struct {
		ts   int64
		temp float64
	}{{100, 20}, {4000, 22}, {9900, 21}, {10_500, 30}} {
		s.events = append(s.events, oracle.Event{Key: "s-1", TS: r.ts, Values: []windows.Value{windows.NumberValue(r.temp)}})
		s.marks["s-1"] = append(s.marks["s-1"], mark{ts: r.ts, at: t0.Add(time.Duration(r.ts) * time.Millisecond)})
	}
	return s
}

func resultRow(start int64, count, avg, lo, hi, p95 float64, at time.Time) received {
	v := map[string]*float64{"count": &count, "avg_temp": &avg, "min_temp": &lo, "max_temp": &hi, "p95_temp": &p95}
	return received{r: harness.Result{Key: "s-1", Start: start, End: start + windowMS, Kind: "on_time", Values: v}, at: at}
}

func TestCheckPassesTheOraclesRowsAndMeasuresLatencyFromTheWatermarkMove(t *testing.T) {
	s := twoWindows()
	passed := time.Unix(0, 0).Add(10_500 * time.Millisecond)
	rows, problem, lat := check(s, []received{resultRow(0, 3, 21, 20, 22, 21, passed.Add(40*time.Millisecond))}, nil)
	if rows != 1 || problem != "" {
		t.Fatalf("check = %d rows, problem %q; want 1 row, no problem", rows, problem)
	}
	if len(lat) != 1 || lat[0] != 40*time.Millisecond {
		t.Errorf("latencies %v, want [40ms]", lat)
	}
}

func TestCheckFailsAWrongRowAndAMissingWindow(t *testing.T) {
	s := twoWindows()
	_, problem, _ := check(s, []received{resultRow(0, 3, 21, 20, 23, 21, time.Now())}, nil)
	if !strings.Contains(problem, "1 of 1 rows differ") || !strings.Contains(problem, "max_temp") {
		t.Errorf("a wrong max: problem %q", problem)
	}
	_, problem, _ = check(s, nil, nil)
	if !strings.Contains(problem, "1 of 1 due windows missing") {
		t.Errorf("no rows: problem %q", problem)
	}
}

func TestProcReadersReadThisProcess(t *testing.T) {
	cpu, err := procCPU(os.Getpid())
	if err != nil || cpu < 0 {
		t.Fatalf("procCPU = %v, %v", cpu, err)
	}
	hwm, err := procHWM(os.Getpid())
	if err != nil || hwm <= 0 {
		t.Fatalf("procHWM = %v, %v", hwm, err)
	}
	if busy, err := machineBusy(); err != nil || busy <= 0 {
		t.Fatalf("machineBusy = %v, %v", busy, err)
	}
}
