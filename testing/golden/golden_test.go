package golden

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// Regenerate after an intended change of output, and say why in the commit:
//
//	go test ./testing/golden -run TestGoldenReplay -update
var update = flag.Bool("update", false, "rewrite expected.jsonl from this machine's replay")

func TestGoldenReplayIsByteIdenticalToExpected(t *testing.T) {
	cfg, err := configs.Load("config/edged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	feed, err := os.ReadFile("feed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		dataDir string // "" replays in memory
	}{
		{"in memory", ""},
		{"on disk", t.TempDir()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := actors.Replay(actors.ReplayOptions{
				Config: cfg, Input: bytes.NewReader(feed), Output: &out,
				DataDir: tc.dataDir, Durability: persist.Process,
			})
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if *update && tc.dataDir == "" {
				if err := os.WriteFile("expected.jsonl", out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			checkCoverage(t, out.Bytes())
			want, err := os.ReadFile("expected.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				line, got, exp := firstDiff(out.Bytes(), want)
				t.Errorf("replay output differs from expected.jsonl at line %d:\n got  %s\n want %s", line, got, exp)
			}
		})
	}
}

// checkCoverage guards against a regenerated feed that no longer exercises
// what the package promises.
func checkCoverage(t *testing.T, out []byte) {
	t.Helper()
	for _, s := range []string{`"window":"tumbling"`, `"window":"sliding"`, `"window":"session"`,
		`"kind":"late_update"`, `{"late":`, `"p99_temp":`, `"stddev_hum":`, `"distinct_status":`} {
		if !bytes.Contains(out, []byte(s)) {
			t.Errorf("the output has no %s: the feed no longer covers it", s)
		}
	}
}

// firstDiff returns the first line number (1-based) where a and b differ and
// the two lines.
func firstDiff(a, b []byte) (int, []byte, []byte) {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; ; i++ {
		var x, y []byte
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if !bytes.Equal(x, y) || i >= len(la) || i >= len(lb) {
			return i + 1, x, y
		}
	}
}
