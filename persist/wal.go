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
)

// walScan is what Badger's replay will keep of one write-ahead log.
type walScan struct {
	kept int    // offset after the last entry Badger keeps
	tail int    // offset after the entry the replay stopped at, when its extent is known
	seq  uint64 // highest commit sequence in a kept transaction; 0 if none
	// dataAfter says whether a non-zero byte follows tail. A crash tears at most the
	// entry being written and leaves zeros after it (Badger zeroes ahead of each
	// write, and the file was created zero-filled); anything further is damage.
	dataAfter bool
}

// scanWAL reads one write-ahead log the way Badger replays it and finds the commit
// sequence that commitKey holds in it.
func scanWAL(data, commitKey []byte) walScan {
	s := walScan{kept: walHeaderSize, tail: walHeaderSize}
	if len(data) < walHeaderSize {
		s.kept, s.tail = len(data), len(data)
		return s
	}
	off := walHeaderSize
	var txnTs, txnSeq uint64 // the open transaction's version and the seq it writes
	for {
		e, ok := readWALEntry(data, off)
		if e.size > 0 {
			s.tail = off + e.size
		} else {
			s.tail = off
		}
		if !ok {
			break
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
				return s.finish(data)
			}
			txnSeq = max(txnSeq, seq)
		case e.meta&walBitFinTxn != 0:
			v, err := strconv.ParseUint(string(e.value), 10, 64)
			if err != nil || v != txnTs {
				return s.finish(data)
			}
			s.kept, s.seq = end, max(s.seq, txnSeq)
			txnTs, txnSeq = 0, 0
		default:
			if txnTs != 0 {
				return s.finish(data)
			}
			s.kept, s.seq = end, max(s.seq, seq)
		}
		off = end
	}
	return s.finish(data)
}

func (s walScan) finish(data []byte) walScan {
	s.tail = min(s.tail, len(data))
	s.dataAfter = bytes.IndexFunc(data[s.tail:], func(r rune) bool { return r != 0 }) >= 0
	return s
}

type walEntry struct {
	meta       byte
	key, value []byte
	size       int // the entry's extent when its header reads, else 0
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
	if klen > walMaxKey || vlen > uint64(len(b)) {
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
