package uplink

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/natsjs"
	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/natsbroker"
)

func natsUpConfig(url string, create bool) configs.Upstream {
	cfg := upConfig(20, 50*time.Millisecond, 2000)
	cfg.URL, cfg.ClientID = url, "edged-upstream"
	cfg.NATS.JetStream = configs.JetStream{CreateStream: create, Stream: "UP", Storage: "file", DuplicateWindow: time.Hour}
	return cfg
}

// natsIDs reads the stream back and lists, per Nats-Msg-Id, how many messages carry
// it, checking on the way that each message's body carries the same record id.
func natsIDs(t *testing.T, srv *natsbroker.Server) (counts map[string]int, order map[string][]uint64) {
	t.Helper()
	counts, order = map[string]int{}, map[string][]uint64{}
	for _, m := range srv.Messages("UP") {
		id, ok := strings.CutPrefix(m.ID, "cloud/gw/")
		if ids := upRecordIDs(m.Data); !ok || len(ids) != 1 || ids[0] != id {
			t.Fatalf("message %s on %s carries records %v", m.ID, m.Subject, ids)
		}
		if counts[id]++; counts[id] == 1 {
			dev, seq := upIDSeq(t, id)
			if want := "cloud.gw." + dev + ".late.s"; m.Subject != want {
				t.Errorf("record %s went to %s, want %s", m.ID, m.Subject, want)
			}
			order[dev] = append(order[dev], seq)
		}
	}
	return counts, order
}

func TestJetStreamUplinkStoresEveryRecordOnceThroughAnOutageAndRestarts(t *testing.T) {
	srv := natsbroker.Start(t)
	cfg := natsUpConfig(srv.URL(), true)
	dir := t.TempDir()
	devices := []string{"a", "b"}

	h, stop := startUpEdged(t, dir, cfg)
	upEventually(t, 10*time.Second, "edged connected to NATS and set up the stream", h.link.Connected)
	n := map[string]int{}
	h.enqueueRounds(devices, n, 3)
	upEventually(t, 10*time.Second, "the first 60 records stored", func() bool { return srv.Count("UP") == 60 })

	srv.Kill()
	upEventually(t, 10*time.Second, "edged saw the uplink drop", func() bool { return !h.link.Connected() })
	h.enqueueRounds(devices, n, 10)
	stop() // edged stops during the outage; its outbox is on disk

	_, stop = startUpEdged(t, dir, cfg)
	defer stop()
	srv.Restart()
	upEventually(t, 30*time.Second, "all 260 records stored after the outage", func() bool { return srv.Count("UP") == 260 })
	counts, order := natsIDs(t, srv)
	for id, c := range counts {
		if c != 1 {
			t.Errorf("record %s stored %d times", id, c)
		}
	}
	for _, dev := range devices {
		if want := seqRange(1, uint64(n[dev])); !slices.Equal(order[dev], want) {
			t.Errorf("device %s: records stored as %v, want every seq in order %v", dev, order[dev], want)
		}
	}
}

func TestWithoutAStreamTheJetStreamUplinkSaysWhichSubjectHasNone(t *testing.T) {
	srv := natsbroker.Start(t)
	cfg := natsUpConfig(srv.URL(), false)
	log := &broker.SyncBuffer{}
	link, err := Start(t.Context(), cfg, slog.New(slog.NewTextHandler(log, nil)), newTestMetrics())
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	upEventually(t, 10*time.Second, "the link checked for the stream", link.Connected)
	done := make(chan error, 1)
	link.publish(upstreamBatch{device: "a", topic: "late/s", entries: []outbox.Entry{{Seq: 1, Topic: "late/s", Payload: []byte(`{"n":1}`)}}}, func(err error) { done <- err })
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "no JetStream stream takes in subject cloud.gw.a.late.s") {
		t.Errorf("publishing without a stream: %v, want an error naming the subject", err)
	}
	if got := log.String(); !strings.Contains(got, "no JetStream stream takes in subject cloud.gw.>") {
		t.Errorf("the log does not name the subject without a stream:\n%s", got)
	}
}

func TestJetStreamSubjectsMirrorTheTopicsAndIDsNameTheRecord(t *testing.T) {
	u := &natsUplink{prefix: natsjs.Subject(strings.Split("edged/gw1.example.com", "/")...), idPrefix: "edged/gw1.example.com/"}
	result := []byte(`{"device":"d","window":"w","key":"a.b","start":1000,"end":2000,"revision":2,"kind":"late_update","values":{},"watermark":5,"emitted_at":9}`)
	tests := []struct {
		device, topic string
		entry         outbox.Entry
		subject, id   string
	}{
		{"boiler", "late/sensors/s-1/data", outbox.Entry{Seq: 7, Payload: []byte(`{"n":1}`)},
			"edged.gw1%2Eexample%2Ecom.boiler.late.sensors.s-1.data", "boiler-7"},
		{"boiler", "results/w", outbox.Entry{Seq: 8, Payload: result},
			"edged.gw1%2Eexample%2Ecom.boiler.results.w", "boiler/w/a.b/1000/2"},
		{"dev ice", "late/a/+/*", outbox.Entry{Seq: 9, Payload: []byte(`{"n":1}`)},
			"edged.gw1%2Eexample%2Ecom.dev%20ice.late.a.+.%2A", "dev ice-9"},
	}
	for _, tt := range tests {
		if got := u.subject(tt.device, tt.topic); got != tt.subject {
			t.Errorf("subject(%q, %q) = %q, want %q", tt.device, tt.topic, got, tt.subject)
		}
		if got := u.msgID(tt.device, tt.topic, tt.entry); got != "edged/gw1.example.com/"+tt.id {
			t.Errorf("message id of %s on %s = %q, want %q", tt.entry.Payload, tt.topic, got, tt.id)
		}
	}
}

// A result emitted again under a new outbox seq (a restart replayed the input that
// fired it) keeps its key and revision, so JetStream stores it once.
func TestAResultEmittedAgainIsStoredOnceByItsKeyAndRevision(t *testing.T) {
	srv := natsbroker.Start(t)
	h, stop := startUpEdged(t, t.TempDir(), natsUpConfig(srv.URL(), true))
	defer stop()
	upEventually(t, 10*time.Second, "edged connected to NATS and set up the stream", h.link.Connected)
	result := []byte(`{"device":"a","window":"w","key":"k","start":1000,"end":2000,"revision":0,"kind":"on_time","values":{"count":1},"watermark":1999,"emitted_at":2000}`)
	for i := range 2 {
		b := h.store.NewBatch()
		e := outbox.Entry{Topic: "results/w", QoS: 1, Payload: result}
		e.Seq = b.Enqueue(outbox.UpstreamQueue("a"), e.Encode())
		if err := h.store.Commit(b); err != nil {
			t.Fatal(err)
		}
		h.system.Root.Send(h.pid, &outbox.Enqueued{Queue: outbox.UpstreamQueue("a"), Entries: []outbox.Entry{e}, ReplyTo: h.committer})
		upEventually(t, 10*time.Second, "the result delivered", func() bool { return h.store.Stats(outbox.UpstreamQueue("a")).Records == 0 })
		if i == 0 {
			upEventually(t, 10*time.Second, "the result stored", func() bool { return srv.Count("UP") == 1 })
		}
	}
	msgs := srv.Messages("UP")
	if len(msgs) != 1 || msgs[0].ID != "cloud/gw/a/w/k/1000/0" || msgs[0].Subject != "cloud.gw.a.results.w" {
		t.Errorf("the stream holds %+v, want the result once with id cloud/gw/a/w/k/1000/0", msgs)
	}
	var m dto.Metric
	if err := h.link.metrics.Duplicates.Write(&m); err != nil || m.GetCounter().GetValue() != 1 {
		t.Errorf("edged_upstream_duplicates_total = %v (%v), want 1", m.GetCounter().GetValue(), err)
	}
}

// A record the server takes under no circumstances, for its size, must not hold up
// its device's outbox for good: it is refused (dropped from the outbox, counted and
// logged, as a record whose topic MQTT refuses) and the records around it go on.
func TestAJetStreamRecordTooLargeForTheServerIsRefusedAndTheRestDrain(t *testing.T) {
	tests := []struct {
		name   string
		server []natsbroker.Option
		stream int32 // > 0: the stream is made by the test with this max_msg_size
	}{
		{name: "over the server's max_payload", server: []natsbroker.Option{natsbroker.WithMaxPayload(1024)}},
		{name: "over the stream's max_msg_size", stream: 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := natsbroker.Start(t, tt.server...)
			cfg := natsUpConfig(srv.URL(), tt.stream == 0)
			if tt.stream > 0 {
				createTestStream(t, srv.URL(), jetstream.StreamConfig{Name: "UP", Subjects: []string{"cloud.gw.>"}, MaxMsgSize: tt.stream})
			}
			h, stop := startUpEdged(t, t.TempDir(), cfg)
			defer stop()
			upEventually(t, 10*time.Second, "edged connected to NATS and set up the stream", h.link.Connected)

			q := outbox.UpstreamQueue("a")
			b := h.store.NewBatch()
			var entries []outbox.Entry
			for i, size := range []int{10, 2000, 10, 10} { // one batch: natsUpConfig takes 20 records
				e := outbox.Entry{Topic: "late/s", QoS: 1, Payload: fmt.Appendf(nil, `{"n":%d,"pad":%q}`, i, strings.Repeat("x", size))}
				e.Seq = b.Enqueue(q, e.Encode())
				entries = append(entries, e)
			}
			if err := h.store.Commit(b); err != nil {
				t.Fatal(err)
			}
			h.system.Root.Send(h.pid, &outbox.Enqueued{Queue: q, Entries: entries, ReplyTo: h.committer})

			upEventually(t, 10*time.Second, "the outbox drained", func() bool { return h.store.Stats(q).Records == 0 })
			var ids []string
			for _, m := range srv.Messages("UP") {
				ids = append(ids, m.ID)
			}
			if want := []string{"cloud/gw/a-1", "cloud/gw/a-3", "cloud/gw/a-4"}; !slices.Equal(ids, want) {
				t.Errorf("the stream holds %v, want %v: every record but the large one, in order", ids, want)
			}
			if n := testutil.ToFloat64(h.link.metrics.Refused.WithLabelValues("upstream")); n != 1 {
				t.Errorf("edged_publish_refused_total{output=upstream} = %v, want 1", n)
			}
			if n := testutil.ToFloat64(h.link.metrics.Sent); n != 3 {
				t.Errorf("edged_upstream_sent_total = %v, want 3", n)
			}
		})
	}
}

// createTestStream makes a JetStream stream as an operator would.
func createTestStream(t *testing.T, url string, cfg jetstream.StreamConfig) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(t.Context(), cfg); err != nil {
		t.Fatalf("creating stream %s: %v", cfg.Name, err)
	}
}
