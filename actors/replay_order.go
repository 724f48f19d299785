package actors

import (
	"bufio"
	"unsafe"
)

// replayOrder writes replay output in the order things happened rather than the
// order they were committed: a result or late record takes its place in the output
// when it is produced (env.traceOutput) and is written once committed (a result when
// the sink publishes it, a late record when the outbox hands it over with its id),
// together with everything before it. Watermark trace lines take their place when
// emitted, so they precede the firings they cause. Under the synchronized dispatcher
// this order is the same on every run.
type replayOrder struct {
	out   *bufio.Writer
	lines [][]byte // from the first line not yet written; nil: produced, not yet committed
	first int64    // sequence number of lines[0]
	// waiting holds, by content, the sequence numbers of produced entries not yet
	// committed, oldest first. Its keys are the produced payloads themselves, not
	// copies (see produced).
	waiting map[string][]int64
}

func newReplayOrder(out *bufio.Writer) *replayOrder {
	return &replayOrder{out: out, waiting: map[string][]int64{}}
}

// produced reserves the next place in the output for payload. The key shares
// payload's bytes, which nothing changes once produced (an outbox entry's payload is
// only copied from): a copy per result would double what a burst of firings
// (thousands of windows closing at the end of a replay) holds until its commit.
func (o *replayOrder) produced(payload []byte) {
	seq := o.first + int64(len(o.lines))
	o.lines = append(o.lines, nil)
	key := unsafe.String(unsafe.SliceData(payload), len(payload))
	o.waiting[key] = append(o.waiting[key], seq)
}

// committed fills payload's place with line, or appends line if payload has none
// (an entry a previous run into the same data dir left unconfirmed).
func (o *replayOrder) committed(payload, line []byte) {
	seqs := o.waiting[string(payload)]
	if len(seqs) == 0 {
		o.now(line)
		return
	}
	if len(seqs) == 1 {
		delete(o.waiting, string(payload))
	} else {
		o.waiting[string(payload)] = seqs[1:]
	}
	o.lines[seqs[0]-o.first] = line
	o.write()
}

// now appends a line that is final at once.
func (o *replayOrder) now(line []byte) {
	o.lines = append(o.lines, line)
	o.write()
}

// write writes the lines up to the first place still waiting for its commit.
func (o *replayOrder) write() {
	n := 0
	for n < len(o.lines) && o.lines[n] != nil {
		o.out.Write(o.lines[n])
		n++
	}
	clear(o.lines[:n])
	o.lines = o.lines[n:]
	o.first += int64(n)
}

// finish writes what is left, skipping places whose entry was never committed (a
// window actor that failed before its commit): the run never published them.
func (o *replayOrder) finish() {
	for _, l := range o.lines {
		if l != nil {
			o.out.Write(l)
		}
	}
	o.first += int64(len(o.lines))
	o.lines = o.lines[:0]
	clear(o.waiting)
}
