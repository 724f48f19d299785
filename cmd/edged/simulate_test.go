package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/internal/sim"
)

func TestSimulateWritesTheSameReplayFileForTheSameSeedAndStart(t *testing.T) {
	dir := t.TempDir()
	args := func(out string, seed string) []string {
		return []string{"--sensors", "4", "--rate", "10", "--duration", "4s", "--disorder", "300ms",
			"--late-fraction", "0.1", "--late-by", "2s", "--silent", "1", "--seed", seed, "--start", "1733140000000",
			"--output", filepath.Join(dir, out)}
	}
	cases := []struct {
		name, a, b string
		seedB      string
		same       bool
	}{
		{"same seed", "a.jsonl", "b.jsonl", "3", true},
		{"another seed", "a.jsonl", "c.jsonl", "4", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var summary bytes.Buffer
			if err := simulateCmd(args(c.a, "3"), &summary, os.Stderr); err != nil {
				t.Fatal(err)
			}
			if err := simulateCmd(args(c.b, c.seedB), &bytes.Buffer{}, os.Stderr); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(filepath.Join(dir, c.a))
			b, _ := os.ReadFile(filepath.Join(dir, c.b))
			if bytes.Equal(a, b) != c.same {
				t.Errorf("files equal = %v, want %v", bytes.Equal(a, b), c.same)
			}
			var s sim.Summary
			if err := json.Unmarshal(summary.Bytes(), &s); err != nil {
				t.Fatalf("summary %q: %v", summary.String(), err)
			}
			lines := bytes.Count(a, []byte("\n"))
			if s.Total != lines || s.Seed != 3 || s.Start != 1733140000000 || len(s.Sensors) != 4 ||
				strings.Join(s.Silent, ",") != "s-4" || s.Sensors[3].Sent != 20 || s.Sensors[0].Sent != 40 || s.Late == 0 {
				t.Errorf("summary %+v does not describe the %d lines written", s, lines)
			}
		})
	}
}

func TestSimulateRejectsBadFlags(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"qos 2", []string{"--qos", "2"}, "use 0 or 1"},
		{"bad start", []string{"--start", "yesterday"}, "RFC 3339"},
		{"no sensors", []string{"--sensors", "0"}, "sensors is 0"},
		{"endless", []string{"--duration", "0"}, "--duration must be above 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := simulateCmd(append(c.args, "--output", filepath.Join(t.TempDir(), "x")), &bytes.Buffer{}, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestStartAcceptsMillisecondsAndRFC3339(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	cases := []struct {
		in   string
		want int64
	}{
		{"", 1_700_000_000_000},
		{"1733140000000", 1_733_140_000_000},
		{"2024-12-02T12:26:40Z", 1_733_142_400_000},
	}
	for _, c := range cases {
		if got, err := parseStart(c.in, now); err != nil || got != c.want {
			t.Errorf("parseStart(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}
