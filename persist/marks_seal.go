package persist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// chunkFingerprints is what a sealed segment aims to put in one chunk: a lookup
// reads one chunk (512 bytes), and a segment of 10,000 marks (1,000 a second) is
// sealed into 256 chunks, one of 40 marks into one. Fewer, larger chunks would
// save little: at 1,000 marks a second the key and Badger's header of each chunk
// are about a tenth of its bytes.
const chunkFingerprints = 64

// markSealer seals the segments that are over, in a goroutine of the store rather
// than in the commit that notices a new segment: sealing reads a segment's logs
// and writes up to 256 chunks (80 KB at 1,000 marks a second, 1.6 MB at 20,000),
// which must not hold up the commit, and it needs no lock against commits: a log
// is only written under the current segment, so once a commit has logged under
// segment n, no commit writes under an earlier one (but after the wall clock
// stepped back, and then sealing again merges what came late). The goroutine
// waits on commits, not on a timer, so an idle store does not wake; Close stops it.
type markSealer struct {
	s    *Store
	logs markLogs
	last uint64 // the newest segment logged under; guarded by Store.commitMu
	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	once sync.Once
	errs int // seals failed in a row, to log the first only
}

// startSealer loads the mark logs an earlier run left and starts s's sealer,
// which seals those of segments that are over.
func (s *Store) startSealer() error {
	m := &markSealer{s: s, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if err := m.logs.load(s.db); err != nil {
		return fmt.Errorf("reading the dedup marks' logs in state in %s: %w", s.where, err)
	}
	s.sealer = m
	m.kick <- struct{}{}
	go m.run()
	return nil
}

// marksCommitted records the log of a transaction just committed as the commit
// count commit, and tells the sealer when a new segment has begun: the segments
// before it are over. The caller holds Store.commitMu.
func (s *Store) marksCommitted(t *txnBuild, commit uint64) {
	m := s.sealer
	if m == nil || len(t.marks.fps) == 0 {
		return
	}
	m.logs.add(t.marks.seg, commit, slices.Clone(t.marks.fps))
	if t.marks.seg <= m.last {
		return
	}
	m.last = t.marks.seg
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// close stops the sealer and waits for a seal in progress; a segment it leaves
// unsealed is sealed after the next start.
func (m *markSealer) close() {
	if m == nil {
		return
	}
	m.once.Do(func() { close(m.stop) })
	<-m.done
}

func (m *markSealer) run() {
	defer close(m.done)
	for {
		select {
		case <-m.stop:
			return
		case <-m.kick:
		}
		if err := m.s.sealOver(m.stop, &m.logs); err != nil {
			if m.errs == 0 {
				m.s.log.Warn("sealing dedup marks failed; lookups read their logs until a later seal works", "dir", m.s.where, "err", err)
			}
			m.errs++
			continue
		}
		m.errs = 0
	}
}

// sealOver seals every segment before the current one that has logs, until stop.
func (s *Store) sealOver(stop <-chan struct{}, mem *markLogs) (err error) {
	defer s.recovered("sealing dedup marks", &err)
	if s.disk.check() != nil {
		return nil // sealing writes; the logs keep the marks meanwhile
	}
	for _, seg := range mem.before(segmentOf(s.now())) {
		select {
		case <-stop:
			return nil
		default:
		}
		logs, err := s.writeSeal(seg)
		if err == nil {
			err = s.deleteLogs(logs)
		}
		if err != nil {
			return err
		}
		mem.drop(seg, logs)
	}
	return nil
}

// writeSeal writes segment seg's chunks: its logs' fingerprints merged with what
// an earlier seal of it wrote (the wall clock stepped back, or a crash came
// between an earlier seal and its delete), in as many chunks as the segment's
// first seal chose, so a chunk is only ever replaced by a superset of itself. It
// returns the logs it read, which deleteLogs removes; until then a lookup finds
// the marks in both.
func (s *Store) writeSeal(seg uint64) (logs [][]byte, err error) {
	var fps []uint64
	bits, sealed := uint8(0), false
	err = s.db.View(func(txn *badger.Txn) error {
		err := s.eachValue(txn, markLogKey(seg, 0), 9, func(k, v []byte) (bool, error) {
			logs = append(logs, bytes.Clone(k))
			fps = appendFingerprints(fps, v)
			return false, nil
		})
		if err != nil {
			return err
		}
		item, err := txn.Get(markSealKey(seg))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		err = item.Value(func(v []byte) error {
			if len(v) == 1 {
				bits, sealed = v[0], true
			}
			return nil
		})
		if err != nil || !sealed {
			return err
		}
		for p := 0; p < 1<<bits; p++ {
			item, err := txn.Get(markChunkKey(bits, byte(p<<(8-bits)), seg))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err == nil {
				err = item.Value(func(v []byte) error { fps = appendFingerprints(fps, v); return nil })
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || len(logs) == 0 {
		return logs, err
	}
	slices.Sort(fps)
	fps = slices.Compact(fps)
	if !sealed {
		for len(fps)>>bits > chunkFingerprints && bits < 8 {
			bits++
		}
	}
	exp := expiresAt(seg, s.ttl)
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for len(fps) > 0 {
		prefix := chunkPrefix(fps[0], bits)
		n := 1
		for n < len(fps) && chunkPrefix(fps[n], bits) == prefix {
			n++
		}
		val := make([]byte, 0, 8*n)
		for _, fp := range fps[:n] {
			val = binary.BigEndian.AppendUint64(val, fp)
		}
		if err := wb.SetEntry(&badger.Entry{Key: markChunkKey(bits, prefix, seg), Value: val, ExpiresAt: exp}); err != nil {
			return logs, err
		}
		fps = fps[n:]
	}
	if err := wb.SetEntry(&badger.Entry{Key: markSealKey(seg), Value: []byte{bits}, ExpiresAt: exp}); err != nil {
		return logs, err
	}
	return logs, wb.Flush()
}

// deleteLogs removes the logs a seal has written into chunks.
func (s *Store) deleteLogs(logs [][]byte) error {
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range logs {
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	return wb.Flush()
}

func appendFingerprints(fps []uint64, v []byte) []uint64 {
	for ; len(v) >= 8; v = v[8:] {
		fps = append(fps, binary.BigEndian.Uint64(v))
	}
	return fps
}
