package actors

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Outbox queue names. Each device has its own queues so order is kept per device.
func resultsQueue(device string) string  { return "res/" + device }
func upstreamQueue(device string) string { return "up/" + device }

const outboxVersion = 1

// outboxEntry is one message waiting in an outbox: where it goes and what it says.
// For the upstream queue Topic is relative to the upstream topic prefix.
type outboxEntry struct {
	Seq     uint64 // assigned by the store when committed
	Topic   string
	QoS     byte
	Payload []byte
}

func (e outboxEntry) encode() []byte {
	b := make([]byte, 0, 2+binary.MaxVarintLen64+len(e.Topic)+len(e.Payload))
	b = append(b, outboxVersion, e.QoS)
	b = binary.AppendUvarint(b, uint64(len(e.Topic)))
	b = append(b, e.Topic...)
	return append(b, e.Payload...)
}

var errOutboxEntry = errors.New("malformed outbox entry")

func decodeOutboxEntry(seq uint64, b []byte) (outboxEntry, error) {
	if len(b) < 2 {
		return outboxEntry{}, errOutboxEntry
	}
	if b[0] != outboxVersion {
		return outboxEntry{}, fmt.Errorf("outbox entry %d: unknown encoding version %d", seq, b[0])
	}
	n, k := binary.Uvarint(b[2:])
	if k <= 0 || uint64(len(b)-2-k) < n {
		return outboxEntry{}, fmt.Errorf("outbox entry %d: %w", seq, errOutboxEntry)
	}
	rest := b[2+k:]
	return outboxEntry{Seq: seq, QoS: b[1], Topic: string(rest[:n]), Payload: rest[n:]}, nil
}
