package persist

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Dedup marks are kept by segments of wall time rather than as a key each: a key
// per mark lives for DedupTTL and every compaction of the levels it sits in rewrites
// it, so the bytes written per QoS 1 message grew with the length of a run. A
// transaction writes the fingerprints of its marks as one value under the current
// segment (a mark log, tagMarkLog); once the segment is over, sealing (marks_seal.go)
// gathers them into chunks by the fingerprint's leading bits (tagMarkChunk) and
// deletes the logs. A lookup (HasMark) reads the logs not sealed yet (held in
// memory, marks_logs.go) and one chunk per sealed segment. Chunks are keyed by
// their leading bits before their segment, so a lookup reads them as nine ranges
// (one per number of bits a segment may be sealed with) rather than a read per
// segment, a few hundred of them for an hour (BenchmarkHasMark). Everything
// carries Badger's TTL, the segment's end plus DedupTTL, so expired segments go
// without a delete, and lookups seek past them.
//
// A fingerprint is a 64-bit hash of the mark's (device, window, key, id): two
// marks share one with odds of about 1 in 2^64 / (marks within DedupTTL), 1 in
// 5·10^12 at 1,000 marks a second and an hour, and a redelivery that meets such a
// twin is skipped.
const markSegment = 10 * time.Second

// segmentOf is the segment holding time t.
func segmentOf(t time.Time) uint64 { return uint64(t.UnixMilli() / markSegment.Milliseconds()) }

// segmentExpiry is when the marks of segment seg expire: a mark lives at least
// ttl, at most ttl plus a segment.
func segmentExpiry(seg uint64, ttl time.Duration) time.Time {
	return time.UnixMilli(int64(seg+1) * markSegment.Milliseconds()).Add(ttl)
}

// expiresAt is segmentExpiry in Badger's unit, rounded up to the second.
func expiresAt(seg uint64, ttl time.Duration) uint64 {
	return uint64(segmentExpiry(seg, ttl).Add(time.Second - 1).Unix())
}

// markFingerprint hashes a mark's identity, encoded as its old-layout key so that
// no two identities share an encoding: 64-bit FNV-1a, whose top bits (which pick
// a chunk) depend little on the last bytes (the id), so they go through
// MurmurHash3's finalizer.
func markFingerprint(device, window, key string, id uint64) uint64 {
	var buf [128]byte
	h := uint64(14695981039346656037)
	for _, c := range markKey(buf[:0], device, window, key, id) {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// markLogKey is l/<segment>/<commit>: the marks of the transaction that brought
// the commit count to commit. The count is unique per transaction (commitMu).
func markLogKey(seg, commit uint64) []byte {
	k := binary.BigEndian.AppendUint64([]byte{tagMarkLog}, seg)
	return binary.BigEndian.AppendUint64(k, commit)
}

// markSealKey is h/<segment>: a sealed segment, its value the number of leading
// fingerprint bits that pick its chunk; sealing it again keeps that number.
func markSealKey(seg uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{tagMarkSeal}, seg)
}

// markChunkKey is f/<bits>/<prefix>/<segment>: the sorted fingerprints of a
// segment sealed with bits whose leading bits are prefix's.
func markChunkKey(bits uint8, prefix byte, seg uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{tagMarkChunk, bits, prefix}, seg)
}

// chunkPrefix is the chunk of fingerprint fp in a segment sealed with bits.
func chunkPrefix(fp uint64, bits uint8) byte {
	return byte(fp>>56) &^ byte(0xFF>>bits)
}

// logMarks writes the fingerprints a transaction collected (opMark) as one mark
// log under the current segment, in the same transaction as the state they
// belong to; marksCommitted takes note of it once committed.
func (s *Store) logMarks(t *txnBuild) error {
	if len(t.marks.fps) == 0 {
		return nil
	}
	seg := segmentOf(s.now())
	slices.Sort(t.marks.fps)
	val := make([]byte, 0, 8*len(t.marks.fps))
	for _, fp := range t.marks.fps {
		val = binary.BigEndian.AppendUint64(val, fp)
	}
	e := t.entry(markLogKey(seg, s.commits+1), val)
	e.ExpiresAt = expiresAt(seg, s.ttl)
	if err := t.txn.SetEntry(e); err != nil {
		return s.wrapOpErr(err, e.Key)
	}
	t.marks.seg = seg
	return nil
}

// hasFingerprint reports whether sorted holds fp (8-byte big-endian entries).
func hasFingerprint(sorted []byte, fp uint64) bool {
	n := len(sorted) / 8
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if binary.BigEndian.Uint64(sorted[8*m:]) < fp {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < n && binary.BigEndian.Uint64(sorted[8*lo:]) == fp
}

// markLookup looks a fingerprint up in the segments live at one time.
type markLookup struct {
	fp     uint64
	now    time.Time
	oldest uint64 // the oldest segment that may be live
	ttl    time.Duration
}

func (s *Store) markLookup(fp uint64) markLookup {
	now := s.now()
	return markLookup{fp: fp, now: now, oldest: segmentOf(now.Add(-s.ttl - markSegment)), ttl: s.ttl}
}

func (l markLookup) live(seg uint64) bool {
	return seg >= l.oldest && l.now.Before(segmentExpiry(seg, l.ttl))
}

// inMemoryLogs looks the fingerprint up in the logs not sealed yet, as the
// sealer holds them. A lookup reads them before it opens its read transaction:
// a seal drops logs only once their chunks are written, so a transaction opened
// after a miss here sees the chunks.
func (s *Store) inMemoryLogs(l markLookup) bool {
	return s.sealer != nil && s.sealer.logs.has(l.fp, l.live)
}

// findSegmented looks the fingerprint up in the chunk that would hold it of each
// sealed segment still live, and in a read-only store (which has no sealer) in
// the logs on disk, within txn.
func (s *Store) findSegmented(txn *badger.Txn, l markLookup) (found bool, err error) {
	if s.sealer == nil {
		err = s.eachValue(txn, markLogKey(l.oldest, 0), 1, func(k, v []byte) (bool, error) {
			found = len(k) == 17 && l.live(binary.BigEndian.Uint64(k[1:])) && hasFingerprint(v, l.fp)
			return found, nil
		})
	}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagMarkChunk}})
	defer it.Close()
	for bits := uint8(0); bits <= 8 && err == nil && !found; bits++ {
		seek := markChunkKey(bits, chunkPrefix(l.fp, bits), l.oldest)
		for it.Seek(seek); it.ValidForPrefix(seek[:3]) && !found && err == nil; it.Next() {
			k := it.Item().Key()
			if len(k) != 11 || !l.live(binary.BigEndian.Uint64(k[3:])) {
				continue
			}
			err = it.Item().Value(func(v []byte) error { found = hasFingerprint(v, l.fp); return nil })
		}
	}
	return found, err
}

// eachValue calls f with each key and value from seek on while the key shares
// seek's first n bytes, until f says stop or fails.
func (s *Store) eachValue(txn *badger.Txn, seek []byte, n int, f func(k, v []byte) (stop bool, err error)) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: seek[:n]})
	defer it.Close()
	for it.Seek(seek); it.Valid(); it.Next() {
		item := it.Item()
		var stop bool
		err := item.Value(func(v []byte) (err error) { stop, err = f(item.Key(), v); return err })
		if err != nil || stop {
			return err
		}
	}
	return nil
}
