package actors

import (
	"fmt"
	"testing"
)

// TestARecordCostsOneWriteOfItsStreamsState feeds a source records, each followed
// by a flush, the periodic check that sends the record's watermark on, and another
// flush: the first flush saves the state the record moved, and the check changes
// nothing saved, so a record costs one stream-state write, not two.
func TestARecordCostsOneWriteOfItsStreamsState(t *testing.T) {
	root, src, win := quietSource(t, quietDevice("{topic_segment: 1}"), minuteUp())
	const records = 5
	const t0 int64 = 1_700_000_000_000 // event time must be a wall clock's
	epoch := uint64(0)
	flush := func() {
		epoch++
		root.Send(src, &Flush{Epoch: epoch})
	}
	for i := int64(1); i <= records; i++ {
		now := i * 10
		in := &Inbound{Topic: "t/a", Payload: fmt.Appendf(nil, `{"ts":%d}`, t0+i*100), At: now}
		in.ackSlot.Init(func() {}, nil)
		in.ack = &in.ackSlot
		root.Send(src, in)
		flush()
		root.Send(src, &Tick{Now: now + 5})
		flush()
	}
	root.Send(src, &Tick{Now: 900})  // no record since the last check: the countdown starts
	root.Send(src, &Tick{Now: 1000}) // the stream goes idle: that is saved
	flush()

	var wms []int64
	for _, st := range win.saved {
		wms = append(wms, st.Watermark)
	}
	if len(win.saved) != records+1 {
		t.Fatalf("%d records and an idle change saved %d stream states (watermarks %v), want %d",
			records, len(win.saved), wms, records+1)
	}
	for i, st := range win.saved[:records] {
		if ts := t0 + int64(i+1)*100; st.Max != ts || st.Watermark != ts-1 {
			t.Errorf("state %d saved max %d watermark %d, want %d and %d", i, st.Max, st.Watermark, ts, ts-1)
		}
	}
	if !win.saved[records].Idle {
		t.Errorf("the last state saved is not idle: %+v", win.saved[records])
	}
}
