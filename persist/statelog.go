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
// state log (l/<seq>), and the Store keeps the latest value of each such key in
// memory until a checkpoint writes those values under their own keys and deletes
// the blocks. On a gateway's steady feed every reading rewrites its window's state
// and its stream's, so a key of ~35 bytes and Badger's ~17 bytes of entry framing
// were paid for each ~80-byte value, in the write-ahead log and again at level 0;
// a block pays them once per commit, compresses what neighbouring states share,
// and is deleted before its memtable is written out, so only the checkpoints reach
// level 0. A block commits in the same transaction as the rest of the commit (the
// outbox, the marks), so a crash keeps them atomic as separate keys did; Open reads
// the blocks left after the last checkpoint back into memory, in order.
//
// Reads see the log: every read of these tags merges the values in memory over
// Badger's (mergeScan, the lookups in loadKeys, loadStream and uptime).

// loggedTag reports whether keys of tag go through the state log.
func loggedTag(tag byte) bool {
	return tag == tagWindow || tag == tagValve || tag == tagStream || tag == tagUptime
}

// Checkpoint triggers: the encoded blocks since the last checkpoint reach a quarter
// of a memtable (so they are deleted before the memtable holding them is written to
// level 0), or the oldest of them is a minute old (so a restart reads at most a
// minute of blocks back).
const (
	checkpointShare = 4
	checkpointAge   = time.Minute
)

// stateLog is the latest value of each logged key written since the last
// checkpoint. Commits write it under the Store's commitMu; reads take mu.
type stateLog struct {
	mu     sync.Mutex
	groups map[string]*logGroup // by logGroupOf of the key

	next     uint64    // the number of the next block
	first    uint64    // the first block not yet checkpointed; blocks first..next-1 exist
	bytes    int64     // encoded bytes of those blocks
	oldest   time.Time // when block first was written (zero if none)
	limit    int64     // bytes that trigger a checkpoint
	readOnly bool      // the store is read-only: never checkpointed
	encoder  blockEncoder
}

// A logGroup holds the logged values of one key, or of one window actor's windows:
// a window key's group is the key without its start, so a key's windows are found
// without a scan.
type logGroup struct{ entries []logEntry }

type logEntry struct {
	rest string // the key after the group: a window's start, or nothing
	val  []byte // nil with del
	del  bool
}

func newStateLog(memTable int64) *stateLog {
	return &stateLog{groups: map[string]*logGroup{}, next: 1, first: 1, limit: memTable / checkpointShare}
}

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
}

// apply records changes that are now durable, in order.
func (l *stateLog) apply(recs []logRec) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range recs {
		l.set(r)
	}
}

func (l *stateLog) set(r logRec) {
	group, rest := logGroupOf(r.key)
	g := l.groups[string(group)]
	if g == nil {
		g = &logGroup{}
		l.groups[string(group)] = g
	}
	for i := range g.entries {
		if e := &g.entries[i]; e.rest == string(rest) {
			e.val, e.del = append(e.val[:0], r.val...), r.del
			if r.del {
				e.val = nil
			}
			return
		}
	}
	e := logEntry{rest: string(rest), del: r.del}
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

// under returns copies of the logged changes to keys under prefix, sorted by key.
// It looks at every group: a device's or a window's scan, not a per-reading read.
func (l *stateLog) under(prefix []byte) []logRec {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logRec
	for group, g := range l.groups {
		if !strings.HasPrefix(group, string(prefix)) {
			continue
		}
		for _, e := range g.entries {
			out = append(out, logRec{key: []byte(group + e.rest), val: slices.Clone(e.val), del: e.del})
		}
	}
	slices.SortFunc(out, func(a, b logRec) int { return bytes.Compare(a.key, b.key) })
	return out
}

// all returns every logged change, sorted by key, for a checkpoint.
func (l *stateLog) all() []logRec { return l.under(nil) }

// empty reports whether nothing is logged since the last checkpoint.
func (l *stateLog) empty() bool { return l.first == l.next }

// due reports whether the blocks since the last checkpoint call for one.
func (l *stateLog) due(now time.Time) bool {
	return !l.empty() && (l.bytes >= l.limit || now.Sub(l.oldest) >= checkpointAge)
}

// wrote counts committed blocks of n encoded bytes in all.
func (l *stateLog) wrote(blocks, n int, now time.Time) {
	if l.empty() {
		l.oldest = now
	}
	l.next += uint64(blocks)
	l.bytes += int64(n)
}

// checkpointed forgets what a checkpoint wrote under the keys themselves.
func (l *stateLog) checkpointed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.groups)
	l.first, l.bytes, l.oldest = l.next, 0, time.Time{}
}
