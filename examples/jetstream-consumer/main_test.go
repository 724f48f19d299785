package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/edged/edged/testing/natsbroker"
)

// The records of one gateway as a stream may hold them: a result updated by a late
// record, an older revision delivered after the newer one, a session window
// retracted after a merge, and copies that arrived after the stream's duplicate
// window (so JetStream kept them). The table holds each window once, at its
// latest revision, and each late record once.
func TestTheConsumerKeepsTheLatestRevisionOfEachWindowAndEachLateRecordOnce(t *testing.T) {
	srv := natsbroker.Start(t)
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EDGED", Subjects: []string{"edged.>"}}); err != nil {
		t.Fatal(err)
	}
	records := []struct{ subject, body string }{
		{"results.w", `{"id":"gw-1","device":"d","window":"w","key":"a","start":1000,"end":2000,"revision":0,"kind":"on_time","values":{"count":3},"watermark":1999,"emitted_at":2100}`},
		{"late.s", `{"id":"gw-2","device":"d","stream":"s","window":"w","key":"a","reason":"too_late","ts":500,"watermark":2500,"received_at":2600}`},
		{"results.w", `{"id":"gw-3","device":"d","window":"w","key":"a","start":1000,"end":2000,"revision":1,"kind":"late_update","values":{"count":4},"watermark":2500,"emitted_at":2600}`},
		{"results.w", `{"id":"gw-1","device":"d","window":"w","key":"a","start":1000,"end":2000,"revision":0,"kind":"on_time","values":{"count":3},"watermark":1999,"emitted_at":2100}`},
		{"results.v", `{"id":"gw-4","device":"d","window":"v","key":"b","start":5000,"end":6000,"revision":0,"kind":"on_time","values":{"count":1},"watermark":6000,"emitted_at":6100}`},
		{"results.v", `{"id":"gw-5","device":"d","window":"v","key":"b","start":5000,"end":6000,"revision":1,"kind":"retract","values":null,"merged_into":{"start":3000,"end":6000},"watermark":6500,"emitted_at":6600}`},
		{"results.v", `{"id":"gw-6","device":"d","window":"v","key":"b","start":3000,"end":6000,"revision":2,"kind":"late_update","values":{"count":2},"watermark":6500,"emitted_at":6600}`},
		{"late.s", `{"id":"gw-2","device":"d","stream":"s","window":"w","key":"a","reason":"too_late","ts":500,"watermark":2500,"received_at":2600}`},
	}
	for _, r := range records {
		if _, err := js.Publish(ctx, "edged.gw.d."+r.subject, []byte(r.body)); err != nil {
			t.Fatal(err)
		}
	}

	table, err := load(ctx, srv.URL(), "EDGED")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := write(&out, table); err != nil {
		t.Fatal(err)
	}
	want := `{"device":"d","window":"v","key":"b","start":3000,"revision":2,"kind":"late_update","end":6000,"values":{"count":2}}
{"device":"d","window":"w","key":"a","start":1000,"revision":1,"kind":"late_update","end":2000,"values":{"count":4}}
{"late":"gw-2"}
`
	if out.String() != want {
		t.Errorf("the table is\n%s\nwant\n%s", out.String(), want)
	}
}
