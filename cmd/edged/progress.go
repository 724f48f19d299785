package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fastjson"
	"golang.org/x/term"
)

// progressEvery is how often a progress line is redrawn at most; the first
// draw waits as long, so a command that finishes at once prints nothing.
const progressEvery = 250 * time.Millisecond

// progressClock is the clock of progress lines; tests replace it.
var progressClock = time.Now

// progress is one line of status about long work, drawn in place on a
// terminal. A nil *progress draws nothing: commands whose stderr is not a
// terminal print exactly what they did before it existed.
type progress struct {
	w           io.Writer // the terminal
	width       int       // its columns: a wrapped line cannot be redrawn in place
	now         func() time.Time
	label, unit string
	start       time.Time
	mu          sync.Mutex // log lines (logs) come from other goroutines
	last        time.Time
	drawn       bool
}

// progressState is what a progress line shows.
type progressState struct {
	count int64 // lines or readings so far
	at    int64 // virtual time reached, ms since the epoch, if hasAt
	hasAt bool
	// done of total (bytes of the input, ms of a set duration); total 0 = unknown.
	done, total int64
}

// newProgress returns a progress line on stderr if stderr is a terminal and
// out, where the command writes its own output (nil: not stdout), is not
// one: results scrolling by on the same screen would tear the line apart.
func newProgress(stderr, out io.Writer, label, unit string) *progress {
	width, ok := terminalWidth(stderr)
	if _, outTerm := terminalWidth(out); !ok || outTerm {
		return nil
	}
	now := progressClock
	return &progress{w: stderr, width: width, now: now, label: label, unit: unit, start: now()}
}

// terminalWidth reports whether w is a terminal, and its width in columns.
func terminalWidth(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok || f == nil || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width < 20 {
		width = 80
	}
	return width, true
}

// show redraws the line with s, unless it was drawn less than progressEvery ago.
func (p *progress) show(s progressState) {
	if p == nil || !p.due() {
		return
	}
	p.draw(s)
}

// elapsed is the time since the line was made; 0 for a nil line.
func (p *progress) elapsed() time.Duration {
	if p == nil {
		return 0
	}
	return p.now().Sub(p.start)
}

// due says whether the line may be redrawn now.
func (p *progress) due() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	if t.Sub(p.last) < progressEvery || t.Sub(p.start) < progressEvery {
		return false
	}
	p.last = t
	return true
}

func (p *progress) draw(s progressState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := s.format(p.label, p.unit, p.last.Sub(p.start))
	if len(line) > p.width-1 {
		line = line[:p.width-1] // ASCII only, so bytes are columns
	}
	// Carriage return, the line, erase what a longer line left behind.
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.drawn = true
}

// finish erases the line, so what the command prints next starts clean.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
}

func (p *progress) erase() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// logs returns w (the terminal) for log lines: each erases the progress line
// first, and the next draw puts it back below them.
func (p *progress) logs(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return progressLogs{p: p, w: w}
}

type progressLogs struct {
	p *progress
	w io.Writer
}

func (l progressLogs) Write(b []byte) (int, error) {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	l.p.erase()
	return l.w.Write(b)
}

// format is the line: label, count, rate, virtual time reached, and with a
// known total the share done and the time left at the rate so far.
func (s progressState) format(label, unit string, elapsed time.Duration) string {
	b := []byte(label + ": ")
	b = appendGrouped(b, s.count)
	b = append(b, ' ')
	b = append(b, unit...)
	if sec := elapsed.Seconds(); sec > 0 {
		b = append(b, ", "...)
		b = appendGrouped(b, int64(float64(s.count)/sec))
		b = append(b, "/s"...)
	}
	if s.hasAt {
		b = append(b, ", at "...)
		b = time.UnixMilli(s.at).UTC().AppendFormat(b, "2006-01-02 15:04:05 UTC")
	}
	if s.total > 0 {
		done := min(max(s.done, 0), s.total)
		b = fmt.Appendf(b, ", %d%%", done*100/s.total)
		if done > 0 {
			left := time.Duration(float64(elapsed) * float64(s.total-done) / float64(done))
			b = append(b, ", ETA "...)
			b = append(b, left.Round(time.Second).String()...)
		}
	}
	return string(b)
}

// appendGrouped appends n with commas between groups of three digits.
func appendGrouped(b []byte, n int64) []byte {
	s := strconv.FormatInt(n, 10)
	neg := s[0] == '-'
	if neg {
		b, s = append(b, '-'), s[1:]
	}
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return b
}

// fileSize is the size of f if it is a regular file, else 0 (unknown).
func fileSize(f *os.File) int64 {
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		return fi.Size()
	}
	return 0
}

// reader counts what is read through r, input in the replay format of size
// bytes (0 = unknown), and shows it. Its counts run ahead of the work by what
// the consumer buffers (64 KiB, some hundred lines): invisible on a line that
// counts millions.
func (p *progress) reader(r io.Reader, size int64) io.Reader {
	if p == nil {
		return r
	}
	return &progressReader{r: r, p: p, s: progressState{total: size}}
}

type progressReader struct {
	r io.Reader
	p *progress
	s progressState
}

func (r *progressReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	chunk := b[:n]
	r.s.count += int64(bytes.Count(chunk, []byte{'\n'}))
	r.s.done += int64(n)
	if r.p.due() {
		if at, ok := lastAt(chunk); ok {
			r.s.at, r.s.hasAt = at, true
		}
		r.p.draw(r.s)
	}
	return n, err
}

// lastAt is the "at" of the last whole line in chunk, if it has one.
func lastAt(chunk []byte) (int64, bool) {
	end := bytes.LastIndexByte(chunk, '\n')
	if end < 0 {
		return 0, false
	}
	line := chunk[bytes.LastIndexByte(chunk[:end], '\n')+1 : end]
	v, err := fastjson.ParseBytes(line)
	if err != nil || v.Get("at") == nil {
		return 0, false
	}
	at, err := v.Get("at").Int64()
	return at, err == nil
}
