package persist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Key tags: the first byte of every key says what it holds.
const (
	tagDef    byte = 'd' // d/<device>/<window>: window definition
	tagWindow byte = 'w' // w/<device>/<window>/<key>/<start>: window state
	tagValve  byte = 'v' // v/<device>/<window>/<key>: valve
	tagStream byte = 's' // s/<device>/<stream>: generator state
	tagUptime byte = 'u' // u/<device>: how long the device has run (see PutUptime)
	// Window states, valves, stream states and uptimes are written as blocks of the
	// state log (statelog.go) and under the keys above once aged.
	tagStateLog byte = 'b' // b/<seq>: a block of the state log
	tagMark     byte = 'm' // m/<device>/<window>/<key>/<id>: dedup mark of the old layout, read until it expires
	// Dedup marks by segment of wall time (marks_segments.go); segment and commit
	// are big-endian uint64s.
	tagMarkLog   byte = 'l' // l/<segment>/<commit>: fingerprints of one transaction's marks
	tagMarkSeal  byte = 'h' // h/<segment>: a sealed segment and how its chunks are picked
	tagMarkChunk byte = 'f' // f/<bits>/<prefix>/<segment>: sorted fingerprints of a sealed segment
	tagOutbox    byte = 'o' // o/<queue>/<seq>: outbox entry
	tagCounter   byte = 'q' // q/<queue>: last sequence number allocated
	tagCommit    byte = 'c' // c: commits made to the store (see MarkerName)
)

// commitKey holds the number of transactions committed to the store (a counter
// value, see appendCounter), written by every commit.
var commitKey = []byte{tagCommit}

// deviceTags are the tags whose keys belong to a device.
var deviceTags = []byte{tagDef, tagWindow, tagValve, tagStream, tagMark, tagUptime}

// A name segment is its bytes with 0x00 escaped as 0x00 0xFF, followed by 0x00 0x01.
// No name can contain the terminator, a segment is never a prefix of another, and
// byte order of encoded keys is the order of the names, so iteration is sorted by
// (device, window, key) as Go compares strings.
const (
	segEsc  byte = 0x00
	segEnd  byte = 0x01
	segNull byte = 0xFF
)

var errBadKey = errors.New("malformed key")

func appendSeg(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, segEsc, segNull)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, segEsc, segEnd)
}

// appendStart encodes a window start big-endian with the sign bit flipped, so
// negative starts sort before positive ones.
func appendStart(dst []byte, start int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(start)^(1<<63))
}

func devicePrefix(tag byte, device string) []byte {
	return appendSeg([]byte{tag}, device)
}

func defKey(dst []byte, device, window string) []byte {
	return appendSeg(appendSeg(append(dst, tagDef), device), window)
}

func windowKey(dst []byte, k WindowKey) []byte {
	dst = appendSeg(appendSeg(appendSeg(append(dst, tagWindow), k.Device), k.Window), k.Key)
	return appendStart(dst, k.Start)
}

func valveKey(dst []byte, device, window, key string) []byte {
	return appendSeg(appendSeg(appendSeg(append(dst, tagValve), device), window), key)
}

func uptimeKey(dst []byte, device string) []byte {
	return appendSeg(append(dst, tagUptime), device)
}

func streamKey(dst []byte, device, stream string) []byte {
	return appendSeg(appendSeg(append(dst, tagStream), device), stream)
}

func markKey(dst []byte, device, window, key string, id uint64) []byte {
	dst = appendSeg(appendSeg(appendSeg(append(dst, tagMark), device), window), key)
	return binary.BigEndian.AppendUint64(dst, id)
}

func outboxPrefix(queue string) []byte { return appendSeg([]byte{tagOutbox}, queue) }

func outboxKey(dst []byte, queue string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(appendSeg(append(dst, tagOutbox), queue), seq)
}

func logKey(dst []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, tagStateLog), seq)
}

func counterKey(dst []byte, queue string) []byte {
	return appendSeg(append(dst, tagCounter), queue)
}

// keyReader decodes a key; the first error sticks and later reads return zeros.
type keyReader struct {
	b   []byte
	err error
}

func (r *keyReader) seg() string { return string(r.segBytes()) }

// segBytes is seg without the string: the name's bytes in the key itself when it
// holds no 0x00, which is the usual case.
func (r *keyReader) segBytes() []byte {
	if r.err != nil {
		return nil
	}
	var sb []byte
	for i := 0; i < len(r.b); i++ {
		if r.b[i] != segEsc {
			continue
		}
		if i+1 == len(r.b) {
			break
		}
		switch r.b[i+1] {
		case segEnd:
			if sb == nil {
				sb = r.b[:i:i]
			} else {
				sb = append(sb, r.b[:i]...)
			}
			r.b = r.b[i+2:]
			return sb
		case segNull:
			sb = append(sb, r.b[:i+1]...)
			r.b = r.b[i+2:]
			i = -1
		default:
			r.err = errBadKey
			return nil
		}
	}
	r.err = errBadKey
	return nil
}

func (r *keyReader) uint64() uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 8 {
		r.err = errBadKey
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *keyReader) start() int64 { return int64(r.uint64() ^ (1 << 63)) }

// done reports the first error, or an error if bytes are left over.
func (r *keyReader) done() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = errBadKey
	}
	return r.err
}

// describeKey renders a raw key for error messages, such as w/"dev"/"1m"/"s-1"/60000.
func describeKey(k []byte) string {
	if len(k) == 0 {
		return "empty key"
	}
	if string(k) == string(commitKey) {
		return "c (commit count)"
	}
	switch {
	case k[0] == tagStateLog && len(k) == 9:
		return fmt.Sprintf("b/%d (state log block)", binary.BigEndian.Uint64(k[1:]))
	case k[0] == tagMarkLog && len(k) == 17:
		return fmt.Sprintf("l/%d/%d", binary.BigEndian.Uint64(k[1:]), binary.BigEndian.Uint64(k[9:]))
	case k[0] == tagMarkSeal && len(k) == 9:
		return fmt.Sprintf("h/%d", binary.BigEndian.Uint64(k[1:]))
	case k[0] == tagMarkChunk && len(k) == 11:
		return fmt.Sprintf("f/%d/%d/%d", k[1], k[2], binary.BigEndian.Uint64(k[3:]))
	}
	r := keyReader{b: k[1:]}
	segs := map[byte]int{tagDef: 2, tagStream: 2, tagValve: 3, tagWindow: 3, tagMark: 3, tagOutbox: 1, tagCounter: 1, tagUptime: 1}[k[0]]
	parts := []string{string(k[:1])}
	for range segs {
		parts = append(parts, fmt.Sprintf("%q", r.seg()))
	}
	switch k[0] {
	case tagWindow:
		parts = append(parts, fmt.Sprint(r.start()))
	case tagMark, tagOutbox:
		parts = append(parts, fmt.Sprint(r.uint64()))
	}
	if segs == 0 || r.done() != nil {
		return fmt.Sprintf("malformed key %x", k)
	}
	return strings.Join(parts, "/")
}
