package outbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// UpstreamQueue is the outbox of what a device ships to the cloud. Each device has its
// own queues so order is kept per device.
func UpstreamQueue(device string) string { return upstreamPrefix + device }

// UpstreamDevice is the device whose upstream queue is named queue.
func UpstreamDevice(queue string) string { return strings.TrimPrefix(queue, upstreamPrefix) }

const upstreamPrefix = "up/"

const version = 1

// Entry is one message waiting in an outbox: where it goes and what it says.
// For the upstream queue Topic is relative to the upstream topic prefix.
type Entry struct {
	Seq     uint64 // assigned by the store when committed
	Topic   string
	QoS     byte
	Payload []byte
}

// Encode is the entry as the store keeps it (Seq is the store's key, not encoded).
func (e Entry) Encode() []byte {
	b := make([]byte, 0, 2+binary.MaxVarintLen64+len(e.Topic)+len(e.Payload))
	b = append(b, version, e.QoS)
	b = binary.AppendUvarint(b, uint64(len(e.Topic)))
	b = append(b, e.Topic...)
	return append(b, e.Payload...)
}

// Size is the length of Encode's result: what the store counts for the entry.
func (e Entry) Size() int64 {
	n := len(e.Topic)
	k := 1
	for v := uint64(n); v >= 0x80; v >>= 7 {
		k++
	}
	return int64(2 + k + n + len(e.Payload))
}

var errMalformed = errors.New("malformed outbox entry")

// Decode reads an entry the store holds under seq.
func Decode(seq uint64, b []byte) (Entry, error) {
	if len(b) < 2 {
		return Entry{}, errMalformed
	}
	if b[0] != version {
		return Entry{}, fmt.Errorf("outbox entry %d: unknown encoding version %d", seq, b[0])
	}
	n, k := binary.Uvarint(b[2:])
	if k <= 0 || uint64(len(b)-2-k) < n {
		return Entry{}, fmt.Errorf("outbox entry %d: %w", seq, errMalformed)
	}
	rest := b[2+k:]
	return Entry{Seq: seq, QoS: b[1], Topic: string(rest[:n]), Payload: rest[n:]}, nil
}

// WithID splices a record's delivery id, "<device>-<seq>", into an encoded late or
// result record: unique per device across restarts, so the cloud drops by it the
// duplicates at-least-once delivery may create.
func WithID(device string, seq uint64, rec []byte) []byte {
	b := make([]byte, 0, len(rec)+len(device)+32)
	b = append(b, `{"id":"`...)
	b = append(b, device...)
	b = append(b, '-')
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, `",`...)
	return append(b, rec[1:]...)
}
