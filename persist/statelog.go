package persist

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"time"
)

// A commit does not write each window state, valve, stream state and uptime under a
// key of its own: it writes them, front-coded and compressed, as one block of the
// state log (b/<seq>), and the Store keeps the latest value of each such key in
// memory. On a gateway's steady feed every reading rewrites its window's state and
// its stream's; under keys of their own, a key of ~35 bytes and Badger's ~17 bytes
// of framing were paid for each ~80-byte value, in the write-ahead log and again at
// level 0. A block pays them once per commit and compresses what neighbouring
// states share. A block commits in the same transaction as the rest of the commit
// (the outbox, the marks), so a crash keeps them atomic as keys of their own did;
// Open reads the blocks back into memory, in order.
//
// A block is deleted once it holds nothing current: every value in it was written
// again by a later block. On a steady feed that is within seconds, so the block
// dies in its memtable and never reaches level 0. What a block still holds when it
// is checkpointAge old (a key that went quiet, a window's deletion) is written under
// its own key, and the block is deleted with every block before it (aging).
// Deletions keep one rule, so that reading the blocks left over the keys gives the
// latest values after a crash at any point: a block left is never older than an
// aged one, and every value a deleted block held is in a later block left, or under
// its key.
//
// Reads see the log: every read of these tags merges the values in memory over
// Badger's (mergeScan, the lookups in loadKeys, loadStream and uptime).

// loggedTag reports whether keys of tag go through the state log.
func loggedTag(tag byte) bool {
	return tag == tagWindow || tag == tagValve || tag == tagStream || tag == tagUptime
}

// Aging: once the oldest block holding current values is checkpointAge old, the
// blocks older than half of it are aged; so are the older half of the blocks if
// those left reach a quarter of a memtable (checkpointShare), which bounds what a
// restart reads back.
const (
	checkpointAge   = 20 * time.Second
	checkpointShare = 4
)

// stateLog is the latest value of each logged key not yet under its own key, and
// the blocks that hold them. Commits change it under the Store's commitMu; reads
// take mu.
type stateLog struct {
	mu sync.Mutex
	// aging is held by aging from before it writes values under their keys until it
	// has dropped them from the log, and shared by reads from before their snapshot
	// until they have read the log: else a read could miss a value in both.
	aging  sync.RWMutex
	groups map[string]*logGroup // by logGroupOf of the key

	first    uint64     // the oldest block left; blocks first..first+len(blocks)-1 exist or are dead
	blocks   []logBlock // by seq - first
	bytes    int64      // encoded bytes of the blocks left
	limit    int64      // bytes that trigger aging
	readOnly bool       // the store is read-only: nothing is deleted or aged
	encoder  blockEncoder
}

// logBlock is what the log knows of one block.
type logBlock struct {
	live    int       // values in it that are the latest of their key
	at      time.Time // when it was committed (or read back)
	size    int       // its encoded size
	deleted bool      // deleted from Badger (dead, or aged)
}

// A logGroup holds the logged values of one key, or of one window actor's windows:
// a window key's group is the key without its start, so a key's windows are found
// without a scan.
type logGroup struct{ entries []logEntry }

type logEntry struct {
	rest string // the key after the group: a window's start, or nothing
	val  []byte // nil with del
	del  bool
	seq  uint64 // the block the value is in
}

func newStateLog(memTable int64) *stateLog {
	return &stateLog{groups: map[string]*logGroup{}, first: 1, limit: memTable / checkpointShare}
}

// next is the number of the next block.
func (l *stateLog) next() uint64 { return l.first + uint64(len(l.blocks)) }

// logGroupOf splits a logged key into its group and the rest.
func logGroupOf(key []byte) (group, rest []byte) {
	if key[0] == tagWindow && len(key) > 9 {
		return key[:len(key)-8], key[len(key)-8:]
	}
	return key, nil
}

// logRec is one change a block carries.
type logRec struct {
	key, val []byte
	del      bool
	seq      uint64 // the block it went into
}

// added records committed blocks: one of n encoded bytes for each of sizes, then
// their changes, in order.
func (l *stateLog) added(sizes []int, recs []logRec, now time.Time) {
	for _, n := range sizes {
		l.blocks = append(l.blocks, logBlock{at: now, size: n})
		l.bytes += int64(n)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range recs {
		l.set(r)
	}
}

func (l *stateLog) block(seq uint64) *logBlock { return &l.blocks[seq-l.first] }

func (l *stateLog) set(r logRec) {
	l.block(r.seq).live++
	group, rest := logGroupOf(r.key)
	g := l.groups[string(group)]
	if g == nil {
		g = &logGroup{}
		l.groups[string(group)] = g
	}
	for i := range g.entries {
		if e := &g.entries[i]; e.rest == string(rest) {
			l.block(e.seq).live--
			e.seq, e.del = r.seq, r.del
			e.val = append(e.val[:0], r.val...)
			if r.del {
				e.val = nil
			}
			return
		}
	}
	e := logEntry{rest: string(rest), del: r.del, seq: r.seq}
	if !r.del {
		e.val = slices.Clone(r.val)
	}
	g.entries = append(g.entries, e)
}

// get returns a copy of key's logged value: found is false if the log has none,
// del true if the log deleted it.
func (l *stateLog) get(key []byte) (val []byte, del, found bool) {
	group, rest := logGroupOf(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.groups[string(group)]
	if g == nil {
		return nil, false, false
	}
	for _, e := range g.entries {
		if e.rest == string(rest) {
			return slices.Clone(e.val), e.del, true
		}
	}
	return nil, false, false
}

// windows returns copies of the logged windows of one window actor, whose group
// (a window key without its start) is group.
func (l *stateLog) windows(group []byte) []logEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.groups[string(group)]
	if g == nil {
		return nil
	}
	out := make([]logEntry, len(g.entries))
	for i, e := range g.entries {
		out[i] = logEntry{rest: e.rest, val: slices.Clone(e.val), del: e.del}
	}
	return out
}

// under returns copies of the logged changes to keys under prefix whose values are
// in blocks before upTo, sorted by key. It looks at every group: a device's or a
// window's scan, or aging, not a per-reading read.
func (l *stateLog) under(prefix []byte, upTo uint64) []logRec {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logRec
	for group, g := range l.groups {
		if !strings.HasPrefix(group, string(prefix)) {
			continue
		}
		for _, e := range g.entries {
			if e.seq < upTo {
				out = append(out, logRec{key: []byte(group + e.rest), val: slices.Clone(e.val), del: e.del, seq: e.seq})
			}
		}
	}
	slices.SortFunc(out, func(a, b logRec) int { return bytes.Compare(a.key, b.key) })
	return out
}

// allBlocks is the upTo of under that takes every block, for reads, which do not
// hold commitMu and so cannot look at the blocks.
const allBlocks = ^uint64(0)

// all returns every logged change, sorted by key.
func (l *stateLog) all() []logRec { return l.under(nil, allBlocks) }

// dead returns the blocks not yet deleted that hold nothing current.
func (l *stateLog) dead() []uint64 {
	var seqs []uint64
	for i, b := range l.blocks {
		if b.live == 0 && !b.deleted {
			seqs = append(seqs, l.first+uint64(i))
		}
	}
	return seqs
}

// ageCut returns the block before which every block is to be aged now: first if
// none is.
func (l *stateLog) ageCut(now time.Time) uint64 {
	// The oldest block holding current values; dead blocks before it go with the
	// next commit, not with aging.
	oldest := slices.IndexFunc(l.blocks, func(b logBlock) bool { return b.live > 0 })
	switch {
	case oldest < 0:
		return l.first
	case now.Sub(l.blocks[oldest].at) >= checkpointAge:
		old := slices.IndexFunc(l.blocks[oldest:], func(b logBlock) bool { return now.Sub(b.at) < checkpointAge/2 })
		if old < 0 {
			return l.next()
		}
		return l.first + uint64(oldest+old)
	case l.bytes >= l.limit:
		return l.first + uint64(max(oldest+1, len(l.blocks)/2))
	}
	return l.first
}

// deleted forgets blocks deleted from Badger: seqs (dead ones), and every block
// before cut (aged, their current values now under their own keys).
func (l *stateLog) deleted(seqs []uint64, cut uint64) {
	for _, seq := range seqs {
		b := l.block(seq)
		b.deleted = true
		l.bytes -= int64(b.size)
	}
	if cut > l.first {
		l.mu.Lock()
		for group, g := range l.groups {
			g.entries = slices.DeleteFunc(g.entries, func(e logEntry) bool { return e.seq < cut })
			if len(g.entries) == 0 {
				delete(l.groups, group)
			}
		}
		l.mu.Unlock()
		for _, b := range l.blocks[:cut-l.first] {
			if !b.deleted {
				l.bytes -= int64(b.size)
			}
		}
		l.blocks = slices.Delete(l.blocks, 0, int(cut-l.first))
		l.first = cut
	}
	// Dead blocks at the front are gone for good: nothing refers to them.
	n := 0
	for n < len(l.blocks) && l.blocks[n].deleted {
		n++
	}
	l.blocks = slices.Delete(l.blocks, 0, n)
	l.first += uint64(n)
}
