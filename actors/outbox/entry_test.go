package outbox

import (
	"bytes"
	"strings"
	"testing"
)

// The uplink sizes the outbox by Size without encoding; the store counts Encode.
func TestAnEntryDecodesToItselfAndSizeIsItsEncodedLength(t *testing.T) {
	for _, e := range []Entry{
		{Seq: 1, Topic: "late/s", QoS: 1, Payload: []byte(`{"n":1}`)},
		{Seq: 2, Topic: strings.Repeat("t", 200), Payload: []byte(`{}`)}, // a two-byte length
		{Seq: 3},
	} {
		b := e.Encode()
		if int64(len(b)) != e.Size() {
			t.Errorf("topic of %d bytes: Size %d, encoded %d bytes", len(e.Topic), e.Size(), len(b))
		}
		got, err := Decode(e.Seq, b)
		if err != nil || got.Seq != e.Seq || got.Topic != e.Topic || got.QoS != e.QoS || !bytes.Equal(got.Payload, e.Payload) {
			t.Errorf("Decode(Encode(%+v)) = %+v, %v", e, got, err)
		}
	}
	if _, err := Decode(4, []byte{version, 0, 9, 'a'}); err == nil {
		t.Error("an entry whose topic runs past its end decoded")
	}
}
