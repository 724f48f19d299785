package persist

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"strconv"
)

// Badger replays each write-ahead log (.mem file) up to the first entry that does
// not read back, truncates the file there and takes the rest as never written. That
// is right for the torn tail a crash leaves, and silently wrong for damage in the
// middle: everything after it is dropped. Badger does this inside Open, before
// edged could look, and then flushes and deletes the file; so edged reads the logs
// itself first, in Badger v4's format (value.go, structs.go, memtable.go):
//
//	file:  keyID (8 bytes) | baseIV (12 bytes) | entry...
//	entry: meta | userMeta | uvarint klen | uvarint vlen | uvarint expiresAt |
//	       key (user key + 8-byte version) | value | CRC-32C of all before it
//
// Entries of a transaction carry bitTxn and end with an entry carrying bitFinTxn
// whose value is the transaction's version in decimal.
const (
	walHeaderSize = 20
	walBitTxn     = 1 << 6
	walBitFinTxn  = 1 << 7
	walMaxKey     = 1 << 16
	walUnusedMeta = 1<<4 | 1<<5 // meta bits Badger v4 never sets
	// walMaxEntry bounds one entry: the largest key and the largest value Badger
	// keeps in the log rather than the value log (badgerOptions' value threshold).
	walMaxEntry = 2 + 3*binary.MaxVarintLen64 + walMaxKey + maxValueThreshold + crc32.Size
)

// walScan is what Badger's replay will keep of one write-ahead log.
type walScan struct {
	kept int    // offset after the last entry Badger keeps
	seq  uint64 // highest commit sequence in a kept transaction; 0 if none
	// more says that more follows where the replay stops than the entry a crash
	// interrupted: a whole entry, or more than one entry's worth of bytes. Badger
	// would drop it. A torn entry's bytes alone are not more: Go's memmove writes
	// the head of a large copy last, so a torn entry may have its body but no
	// header yet.
	more bool
}

// scanWAL reads one write-ahead log the way Badger replays it and finds the commit
// sequence that commitKey holds in it.
func scanWAL(data, commitKey []byte) walScan {
	s := walScan{kept: min(walHeaderSize, len(data))}
	if len(data) < walHeaderSize {
		return s
	}
	off := walHeaderSize
	var txnTs, txnSeq uint64 // the open transaction's version and the seq it writes
	for {
		e, ok := readWALEntry(data, off)
		if !ok {
			return s.after(data, off)
		}
		end := off + e.size
		ts := uint64(0)
		if len(e.key) >= 8 {
			ts = math.MaxUint64 - binary.BigEndian.Uint64(e.key[len(e.key)-8:])
		}
		var seq uint64
		if len(e.key) == len(commitKey)+8 && bytes.HasPrefix(e.key, commitKey) {
			seq, _ = decodeCounter(e.value)
		}
		switch {
		case e.meta&walBitTxn != 0:
			if txnTs == 0 {
				txnTs = ts
			}
			if ts != txnTs {
				return s.after(data, end)
			}
			txnSeq = max(txnSeq, seq)
		case e.meta&walBitFinTxn != 0:
			v, err := strconv.ParseUint(string(e.value), 10, 64)
			if err != nil || v != txnTs {
				return s.after(data, end)
			}
			s.kept, s.seq = end, max(s.seq, txnSeq)
			txnTs, txnSeq = 0, 0
		default:
			if txnTs != 0 {
				return s.after(data, end)
			}
			s.kept, s.seq = end, max(s.seq, seq)
		}
		off = end
	}
}

// after judges the bytes from stop on, where the replay stopped: at an entry that
// does not read back, or after one that breaks its transaction.
func (s walScan) after(data []byte, stop int) walScan {
	end := len(data) // after the last non-zero byte
	for end > stop && data[end-1] == 0 {
		end--
	}
	if end-stop > walMaxEntry {
		s.more = true
		return s
	}
	for off := stop; off < end && !s.more; off++ {
		if walHead(data[off:]) {
			_, s.more = readWALEntry(data, off)
		}
	}
	return s
}

// walHead says whether b may start an entry of edged's store: meta with only the bits
// Badger sets and no user meta (edged sets none). Looking for a whole entry among a
// torn one's bytes checksums at every offset that passes, so this keeps that search
// from costing seconds at start over a torn value of a megabyte: almost every offset
// fails this test before any checksum is computed.
func walHead(b []byte) bool {
	return len(b) >= 2 && b[0]&walUnusedMeta == 0 && b[1] == 0
}

type walEntry struct {
	meta       byte
	key, value []byte
	size       int
}

// readWALEntry reads the entry at off. ok is false where Badger's replay stops:
// the end of the file, a zeroed or unreadable header, or a checksum mismatch.
func readWALEntry(data []byte, off int) (e walEntry, ok bool) {
	b := data[off:]
	if len(b) < 2 {
		return e, false
	}
	n := 2
	klen, c := binary.Uvarint(b[n:])
	if c <= 0 {
		return e, false
	}
	n += c
	vlen, c := binary.Uvarint(b[n:])
	if c <= 0 {
		return e, false
	}
	n += c
	if _, c = binary.Uvarint(b[n:]); c <= 0 {
		return e, false
	}
	n += c
	// A value above the threshold is in the value log and this entry holds its
	// pointer: a longer one is no entry, and checksumming it only costs.
	if klen > walMaxKey || vlen > maxValueThreshold {
		return e, false
	}
	size := n + int(klen) + int(vlen) + crc32.Size
	if size > len(b) {
		return e, false
	}
	e.size = size
	body := b[:size-crc32.Size]
	if binary.BigEndian.Uint32(b[size-crc32.Size:]) != crc32.Checksum(body, castagnoli) {
		return e, false
	}
	e.meta = b[0]
	e.key = body[n : n+int(klen)]
	e.value = body[n+int(klen):]
	return e, true
}
