package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

func TestProgressLineFormat(t *testing.T) {
	const at = 1733140000000 // 2024-12-02 11:46:40 UTC
	tests := []struct {
		name    string
		s       progressState
		elapsed time.Duration
		want    string
	}{
		{"nothing yet", progressState{}, 0, "replay: 0 lines"},
		{"an input of unknown size", progressState{count: 1234567, at: at, hasAt: true}, 10 * time.Second,
			"replay: 1,234,567 lines, 123,456/s, at 2024-12-02 11:46:40 UTC"},
		{"a quarter of a file", progressState{count: 999, at: at + 1500, hasAt: true, done: 250, total: 1000}, 10 * time.Second,
			"replay: 999 lines, 99/s, at 2024-12-02 11:46:41 UTC, 25%, ETA 30s"},
		{"an epoch at of 0 still shows", progressState{count: 1, hasAt: true}, time.Second,
			"replay: 1 lines, 1/s, at 1970-01-01 00:00:00 UTC"},
		{"nothing of a file read yet", progressState{total: 1000}, time.Second, "replay: 0 lines, 0/s, 0%"},
		{"a file that grew past its size", progressState{count: 5, done: 1200, total: 1000}, 2 * time.Second,
			"replay: 5 lines, 2/s, 100%, ETA 0s"},
		{"an hour left", progressState{count: 7, done: 1, total: 3601}, time.Second,
			"replay: 7 lines, 7/s, 0%, ETA 1h0m0s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.format("replay", "lines", tc.elapsed); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// stepClock is a clock that moves step forward each time it is read.
func stepClock(step time.Duration) func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time { t = t.Add(step); return t }
}

// lineReader hands out one line per Read, as a slow consumer of a file would
// see it arrive.
type lineReader struct{ lines []string }

func (r *lineReader) Read(b []byte) (int, error) {
	if len(r.lines) == 0 {
		return 0, io.EOF
	}
	n := copy(b, r.lines[0])
	r.lines = r.lines[1:]
	return n, nil
}

// Every Read is 100 ms of the injected clock: the line is drawn at 300, 600 and
// 900 ms (never within 250 ms of the start or of the last draw), each time in
// place, and finish erases it.
func TestProgressRedrawsInPlaceAtMostEveryQuarterSecond(t *testing.T) {
	var lines []string
	for i := range 10 {
		lines = append(lines, fmt.Sprintf(`{"at":%d,"topic":"t","payload":1}`+"\n", 1733140000000+int64(i)*60_000))
	}
	size := int64(len(strings.Join(lines, "")))
	var term bytes.Buffer
	now := stepClock(0)
	p := &progress{w: &term, width: 80, now: stepClock(100 * time.Millisecond), label: "replay", unit: "lines", start: now()}
	got, err := io.ReadAll(p.reader(&lineReader{lines: lines}, size))
	if err != nil || string(got) != strings.Join(lines, "") {
		t.Fatalf("the reader changed what it passed on (%v)", err)
	}
	p.finish()
	want := "\rreplay: 3 lines, 10/s, at 2024-12-02 11:48:40 UTC, 30%, ETA 1s\x1b[K" +
		"\rreplay: 6 lines, 10/s, at 2024-12-02 11:51:40 UTC, 60%, ETA 0s\x1b[K" +
		"\rreplay: 9 lines, 10/s, at 2024-12-02 11:54:40 UTC, 90%, ETA 0s\x1b[K" +
		"\r\x1b[K"
	if term.String() != want {
		t.Errorf("the terminal got\n%q\nwant\n%q", term.String(), want)
	}
}

func TestProgressLineFitsTheTerminalAndGivesWayToLogLines(t *testing.T) {
	var term bytes.Buffer
	p := &progress{w: &term, width: 30, now: stepClock(time.Second), label: "record", unit: "readings"}
	p.start = p.now()
	logs := p.logs(&term)
	fmt.Fprint(logs, "level=WARN before\n")
	p.show(progressState{count: 123456789, done: 1, total: 2})
	fmt.Fprint(logs, "level=WARN during\n")
	p.show(progressState{count: 123456790, done: 1, total: 2})
	p.finish()
	p.finish()
	want := "level=WARN before\n" +
		"\rrecord: 123,456,789 readings,\x1b[K" +
		"\r\x1b[Klevel=WARN during\n" +
		"\rrecord: 123,456,790 readings,\x1b[K" +
		"\r\x1b[K"
	if term.String() != want {
		t.Errorf("the terminal got\n%q\nwant\n%q", term.String(), want)
	}
}

// A nil progress, what a command gets without a terminal, does nothing.
func TestNoProgressLineIsANoOp(t *testing.T) {
	var p *progress
	in := strings.NewReader("x\n")
	if p.reader(in, 2) != io.Reader(in) {
		t.Error("a nil progress wraps the input")
	}
	var b bytes.Buffer
	if p.logs(&b) != io.Writer(&b) {
		t.Error("a nil progress wraps the log writer")
	}
	p.show(progressState{count: 1})
	p.finish()
	if p.elapsed() != 0 {
		t.Error("a nil progress has elapsed time")
	}
}

// openTerminal is a pseudo-terminal of the given width: the terminal end,
// which a command writes to, and what it shows (read once the terminal end
// is closed).
func openTerminal(t *testing.T, cols uint16) (*os.File, func() string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	shown := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(ptmx) // ends with EIO once tty is closed
		shown <- string(b)
	}()
	return tty, func() string { tty.Close(); return <-shown }
}

func TestProgressIsDrawnOnlyOnATerminal(t *testing.T) {
	tty, _ := openTerminal(t, 100)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	tests := []struct {
		name        string
		stderr, out io.Writer
		want        bool
	}{
		{"stderr in memory", &bytes.Buffer{}, nil, false},
		{"stderr a pipe", w, nil, false},
		{"stderr a file", file, nil, false},
		{"stderr a terminal", tty, nil, true},
		{"stderr a terminal, output to a file", tty, file, true},
		{"stderr a terminal, output to it too", tty, tty, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newProgress(tc.stderr, tc.out, "replay", "lines")
			if (p != nil) != tc.want {
				t.Fatalf("progress line %v, want %v", p != nil, tc.want)
			}
			if p != nil && p.width != 100 {
				t.Errorf("width %d, want the terminal's 100", p.width)
			}
		})
	}
}

// useClock makes progress lines read clock until the test ends.
func useClock(t *testing.T, clock func() time.Time) {
	t.Helper()
	prev := progressClock
	progressClock = clock
	t.Cleanup(func() { progressClock = prev })
}

// On a terminal replay and tune draw their lines (a clock that jumps a second
// per reading makes every read draw) and erase them; stdout is byte-identical
// to a run without a terminal, whose stderr holds no progress (only the log
// line about the recording's unconfigured topic).
func TestReplayAndTuneShowProgressOnATerminalOnly(t *testing.T) {
	useClock(t, stepClock(time.Second))
	dir := plWriteTree(t, map[string]string{"edged.yaml": "broker: {url: tcp://127.0.0.1:1883}\n", "devices/d.yaml": tuneDevice})
	rec := tuneRecording(t, dir)
	for _, tc := range []struct {
		name  string
		args  []string
		lines []string // substrings the terminal must show
	}{
		{"replay", []string{"replay", "--config", dir + "/edged.yaml", "--input", rec},
			[]string{"\rreplay: 301 lines, "}},
		{"tune --apply", []string{"tune", "--config", dir + "/edged.yaml", "--input", rec, "--apply", dir + "/tuned.yaml"},
			[]string{"\rtune: reading: 301 lines, ", "\rtune: replay as configured: 301 lines, ", "\rtune: replay as tuned: 301 lines, "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var plain, plainErr bytes.Buffer
			if code := dispatch(tc.args, &plain, &plainErr); code != 0 || strings.ContainsAny(plainErr.String(), "\r\x1b") {
				t.Fatalf("without a terminal: exit %d, stderr %q", code, plainErr.String())
			}
			tty, shown := openTerminal(t, 120)
			var out bytes.Buffer
			if code := dispatch(tc.args, &out, tty); code != 0 {
				t.Fatalf("exit %d; the terminal shows %q", code, shown())
			}
			screen := shown()
			for _, l := range tc.lines {
				if !strings.Contains(screen, l) {
					t.Errorf("the terminal lacks %q; it shows %q", l, screen)
				}
			}
			if !strings.HasSuffix(screen, "\r\x1b[K") {
				t.Errorf("the terminal's last line is not erased: %q", screen)
			}
			if !bytes.Equal(out.Bytes(), plain.Bytes()) {
				t.Errorf("stdout with a terminal differs:\n%s\nwithout:\n%s", out.Bytes(), plain.Bytes())
			}
		})
	}
}
