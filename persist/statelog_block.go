package persist

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/klauspost/compress/zstd"
)

// A state-log block is blockVersion, then a zstd frame of: the number of records
// (uvarint), then per record a flags byte (blockDel), the bytes its key shares with
// the previous record's (uvarint), the length of the rest (uvarint) and the rest,
// and unless deleted the value's length (uvarint) and the value. Records are sorted
// by key, so the device, window and key names a commit repeats are written once.
const (
	blockVersion byte = 1
	blockDel     byte = 1
	// maxBlockRaw bounds a block before compression, so that a block stays far
	// below the value threshold (it lives in the LSM tree, not the value log) and
	// inside the compressor's window.
	maxBlockRaw = 128 << 10
)

// blockEncoder compresses blocks; one per Store, used under commitMu.
type blockEncoder struct {
	zw  *zstd.Encoder
	raw []byte
}

// encode appends the block of recs (sorted by key) to dst.
func (e *blockEncoder) encode(dst []byte, recs []logRec) []byte {
	if e.zw == nil {
		// Errors come only from invalid options.
		e.zw, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true),
			zstd.WithWindowSize(maxBlockRaw), zstd.WithZeroFrames(true))
	}
	raw := binary.AppendUvarint(e.raw[:0], uint64(len(recs)))
	var prev []byte
	for _, r := range recs {
		shared := commonPrefix(prev, r.key)
		var flags byte
		if r.del {
			flags = blockDel
		}
		raw = append(raw, flags)
		raw = binary.AppendUvarint(raw, uint64(shared))
		raw = binary.AppendUvarint(raw, uint64(len(r.key)-shared))
		raw = append(raw, r.key[shared:]...)
		if !r.del {
			raw = binary.AppendUvarint(raw, uint64(len(r.val)))
			raw = append(raw, r.val...)
		}
		prev = r.key
	}
	e.raw = raw
	if cap(e.raw) > 4*maxBlockRaw {
		e.raw = nil // a burst's buffer is not kept
	}
	return e.zw.EncodeAll(raw, append(dst, blockVersion))
}

// rawSize is an upper bound of what r adds to a block before compression.
func (r logRec) rawSize() int { return len(r.key) + len(r.val) + 3*binary.MaxVarintLen32 + 1 }

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// decodeBlock reads a block back into its records.
func decodeBlock(zr *zstd.Decoder, block []byte) ([]logRec, error) {
	if len(block) == 0 || block[0] != blockVersion {
		return nil, fmt.Errorf("%w: state log block of version %v", ErrCorrupt, block[:min(len(block), 1)])
	}
	raw, err := zr.DecodeAll(block[1:], nil)
	if err != nil {
		return nil, fmt.Errorf("%w: state log block: %v", ErrCorrupt, err)
	}
	b := raw // what is left to read
	uvarint := func() (uint64, bool) {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		return v, true
	}
	take := func(n uint64, ok bool) ([]byte, bool) {
		if !ok || n > uint64(len(b)) {
			return nil, false
		}
		p := b[:n:n]
		b = b[n:]
		return p, true
	}
	bad := func(what string) ([]logRec, error) {
		return nil, fmt.Errorf("%w: state log block: %s", ErrCorrupt, what)
	}
	n, ok := uvarint()
	if !ok || n > uint64(len(raw)) {
		return bad("record count")
	}
	recs := make([]logRec, 0, n)
	var prev []byte
	for range n {
		flags, ok := take(1, true)
		if !ok || flags[0]&^blockDel != 0 {
			return bad("record flags")
		}
		shared, sharedOK := uvarint()
		rest, ok := take(uvarint())
		if !sharedOK || !ok || shared > uint64(len(prev)) {
			return bad("record key")
		}
		key := append(slices.Clone(prev[:shared]), rest...)
		if len(key) == 0 || !loggedTag(key[0]) {
			return bad(fmt.Sprintf("record of key %s", describeKey(key)))
		}
		rec := logRec{key: key, del: flags[0]&blockDel != 0}
		if !rec.del {
			if rec.val, ok = take(uvarint()); !ok {
				return bad("record value")
			}
		}
		recs = append(recs, rec)
		prev = key
	}
	if len(b) != 0 {
		return bad("bytes after the last record")
	}
	return recs, nil
}
