package uplink

import (
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/edged/edged/actors/outbox"
	"github.com/edged/edged/configs"
)

func upConfig(maxRecords int, maxDelay time.Duration, rate float64) configs.Upstream {
	return configs.Upstream{
		URL: "tcp://127.0.0.1:1", TopicPrefix: "cloud/gw",
		Batch:   configs.Batch{MaxRecords: maxRecords, MaxDelay: maxDelay},
		MaxRate: rate,
	}
}

func TestUpstreamBatchesRecordsByTopicSizeAndDelay(t *testing.T) {
	const t0 = 1000
	tests := []struct {
		name     string
		maxDelay time.Duration
		streams  []string
		ticks    []int64
		want     []upMessage
	}{
		{
			name: "a full batch goes out at once as an array, the rest waits", maxDelay: 100 * time.Millisecond,
			streams: []string{"a", "a", "a", "a"}, ticks: []int64{t0 + 99},
			want: []upMessage{{"cloud/gw/d/late/a", true, []string{"d-1", "d-2", "d-3"}}},
		},
		{
			name: "a partial batch goes out after max_delay as one object", maxDelay: 100 * time.Millisecond,
			streams: []string{"a", "a", "a", "a"}, ticks: []int64{t0 + 50, t0 + 100},
			want: []upMessage{
				{"cloud/gw/d/late/a", true, []string{"d-1", "d-2", "d-3"}},
				{"cloud/gw/d/late/a", false, []string{"d-4"}},
			},
		},
		{
			name: "a change of topic ends a batch", maxDelay: 100 * time.Millisecond,
			streams: []string{"a", "a", "b", "a"}, ticks: []int64{t0 + 100},
			want: []upMessage{
				{"cloud/gw/d/late/a", true, []string{"d-1", "d-2"}},
				{"cloud/gw/d/late/b", false, []string{"d-3"}},
				{"cloud/gw/d/late/a", false, []string{"d-4"}},
			},
		},
		{
			name: "with no max_delay every record goes out at once", maxDelay: 0,
			streams: []string{"a"},
			want:    []upMessage{{"cloud/gw/d/late/a", false, []string{"d-1"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := &upFakeConn{up: true}
			h := newUpHarness(t, t.TempDir(), upConfig(3, tt.maxDelay, 0), conn, nil, true)
			defer h.close()
			h.tick(t0)
			h.enqueue("d", tt.streams, 0, t0, true)
			for _, now := range tt.ticks {
				h.tick(now)
			}
			if got := conn.messages(); !slices.EqualFunc(got, tt.want, upMessageEqual) {
				t.Errorf("published %v, want %v", got, tt.want)
			}
		})
	}
}

func upMessageEqual(a, b upMessage) bool {
	return a.topic == b.topic && a.array == b.array && slices.Equal(a.ids, b.ids)
}

// The budget is spent only on ticks and PUBACKs: a max_rate worth more than a batch
// per tick must still be reached, not capped at one batch per tick.
func TestUpstreamReachesAMaxRateWorthSeveralBatchesPerTick(t *testing.T) {
	const (
		t0         = 10_000
		rate       = 20_000.0
		maxRecords = 100
		tick       = 10  // ms: 200 records' worth of budget per tick
		span       = 200 // ms
	)
	conn := &upFakeConn{up: true}
	h := newUpHarness(t, t.TempDir(), upConfig(maxRecords, time.Second, rate), conn, nil, true)
	defer h.close()
	for i := range 50 {
		h.enqueue("d", slices.Repeat([]string{"s"}, 100), i*100, 0, true)
	}
	h.tick(t0)
	base := conn.records()
	for now := int64(t0 + tick); now <= t0+span; now += tick {
		h.tick(now)
		allowed := maxRecords + rate*tick/1000 + rate*float64(now-t0)/1000
		if sent := conn.records() - base; float64(sent) > allowed {
			t.Fatalf("at %d ms %d records were published, more than the %.0f max_rate allows", now-t0, sent, allowed)
		}
	}
	if sent, min := conn.records()-base, int(rate*span/1000*0.95); sent < min {
		t.Errorf("in %d ms %d records were published, want at least %d: the rate is capped below max_rate", span, sent, min)
	}
}

func TestUpstreamDrainsABacklogNoFasterThanMaxRateWhileNewRecordsArrive(t *testing.T) {
	const (
		t0         = 10_000
		rate       = 500.0
		maxRecords = 50
		backlog    = 1500 // per device
	)
	devices := []string{"a", "b"}
	conn := &upFakeConn{}
	h := newUpHarness(t, t.TempDir(), upConfig(maxRecords, time.Second, rate), conn, nil, true)
	defer h.close()
	streams := slices.Repeat([]string{"s"}, 100)
	total := map[string]int{}
	for range backlog / len(streams) {
		for _, d := range devices {
			h.enqueue(d, streams, total[d], 0, true)
			total[d] += len(streams)
		}
	}
	h.tick(t0 - 10)
	if n := conn.records(); n != 0 {
		t.Fatalf("%d records published while the uplink was down", n)
	}
	conn.setUp(true)
	for now := int64(t0); now <= t0+2000; now += 10 {
		h.tick(now)
		if (now-t0)%100 == 0 { // live late records keep joining the outbox
			for _, d := range devices {
				h.enqueue(d, []string{"s", "s", "s"}, total[d], now, true)
				total[d] += 3
			}
		}
		allowed := maxRecords + max(upstreamBudgetCap, rate*10/1000) + rate*float64(now-t0)/1000
		if sent := conn.records(); float64(sent) > allowed {
			t.Fatalf("at %d ms %d records were published, more than the %.0f max_rate allows", now-t0, sent, allowed)
		}
	}
	if sent, min := conn.records(), int(rate*2)-maxRecords; sent < min {
		t.Errorf("in 2 s %d records were published, want at least %d: draining stalls", sent, min)
	}
	seqs := map[string][]uint64{}
	for _, m := range conn.messages() {
		for _, id := range m.ids {
			d, seq := upIDSeq(t, id)
			seqs[d] = append(seqs[d], seq)
		}
	}
	for _, d := range devices {
		sent := seqs[d]
		if !slices.Equal(sent, seqRange(1, uint64(len(sent)))) {
			t.Errorf("device %s: published seqs %v, want the oldest first, without gaps", d, sent)
		}
		if min := int(rate) - maxRecords; len(sent) < min {
			t.Errorf("device %s: %d records published, want at least %d: the devices share the rate", d, len(sent), min)
		}
		if left := len(h.seqs(outbox.UpstreamQueue(d))); left != total[d]-len(sent) {
			t.Errorf("device %s: %d records left in the outbox, want %d enqueued - %d delivered", d, left, total[d], len(sent))
		}
	}
}

func TestUpstreamFullOutboxAppliesItsPolicyAndCountsEveryDrop(t *testing.T) {
	tests := []struct {
		name     string
		policy   string
		inflight int // records sent and not acknowledged when the outbox fills
		left     []uint64
		blocked  bool
	}{
		{name: "drop_oldest keeps the newest records", policy: policyDropOldest, left: seqRange(11, 20)},
		{name: "drop_newest keeps the oldest records", policy: policyDropNewest, left: seqRange(1, 10)},
		{name: "block keeps every record and blocks intake", policy: policyBlock, left: seqRange(1, 20), blocked: true},
		{name: "drop_oldest never drops records in flight", policy: policyDropOldest, inflight: 5,
			left: append(seqRange(1, 5), seqRange(16, 20)...)},
		{name: "drop_newest with records in flight keeps the oldest", policy: policyDropNewest, inflight: 5,
			left: seqRange(1, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := &upFakeConn{up: tt.inflight > 0, hold: true}
			cfg := upConfig(max(tt.inflight, 1), 0, 0)
			// Every record has the same size (n runs over three digits); ten fit.
			size := len(outbox.Entry{Topic: "late/s", QoS: 1,
				Payload: []byte(`{"device":"d","stream":"s","n":100,"received_at":1}`)}.Encode())
			cfg.Outbox = configs.Outbox{MaxBytes: int64(10 * size), WhenFull: tt.policy}
			h := newUpHarness(t, t.TempDir(), cfg, conn, nil, true)
			defer h.close()
			h.tick(1)
			for i := 0; i < 20; i += 5 {
				h.enqueue("d", []string{"s", "s", "s", "s", "s"}, 100+i, 1, true)
				h.tick(int64(2 + i))
			}
			if got := h.seqs("up/d"); !slices.Equal(got, tt.left) {
				t.Errorf("outbox holds %v, want %v", got, tt.left)
			}
			drops := testutil.ToFloat64(h.env.metrics.Dropped.WithLabelValues(tt.policy))
			if want := float64(20 - len(tt.left)); drops != want {
				t.Errorf("%v records counted as dropped, want %v", drops, want)
			}
			if got := h.link.IntakeBlocked(); got != tt.blocked {
				t.Errorf("intake blocked %v, want %v", got, tt.blocked)
			}

			conn.setUp(true)
			conn.release()
			now := int64(100)
			for ; now < 200 && len(h.seqs("up/d")) > 0; now += 10 {
				h.tick(now)
			}
			h.tick(now) // the limit is checked on ticks
			var got []uint64
			for _, m := range conn.messages() {
				for _, id := range m.ids {
					_, seq := upIDSeq(t, id)
					got = append(got, seq)
				}
			}
			if !slices.Equal(got, tt.left) {
				t.Errorf("after the uplink came back, delivered %v, want what was kept: %v", got, tt.left)
			}
			if h.link.IntakeBlocked() {
				t.Error("intake still blocked after the outbox drained")
			}
		})
	}
}

func seqRange(from, to uint64) []uint64 {
	var s []uint64
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

func TestUpstreamFreshActorShipsTheBacklogAPreviousRunLeft(t *testing.T) {
	dir := t.TempDir()
	down := &upFakeConn{}
	h := newUpHarness(t, dir, upConfig(4, 0, 0), down, nil, true)
	h.enqueue("a", []string{"s", "s", "s"}, 0, 1, true)
	h.enqueue("b", []string{"s", "s"}, 0, 1, true)
	h.tick(10)
	h.close()

	// No Enqueued reaches the new actor: it finds the queues in the store, and with
	// no committer to tell, deletes what it delivered itself.
	up := &upFakeConn{up: true}
	h = newUpHarness(t, dir, upConfig(4, 0, 0), up, nil, true)
	defer h.close()
	h.tick(20)
	want := []upMessage{
		{"cloud/gw/a/late/s", true, []string{"a-1", "a-2", "a-3"}},
		{"cloud/gw/b/late/s", true, []string{"b-1", "b-2"}},
	}
	if got := up.messages(); !slices.EqualFunc(got, want, upMessageEqual) {
		t.Errorf("published %v, want %v", got, want)
	}
	for _, q := range []string{"up/a", "up/b"} {
		if left := h.seqs(q); len(left) > 0 {
			t.Errorf("%s still holds %v after delivery", q, left)
		}
	}
}

func TestUpstreamRetriesARefusedBatchWithoutReordering(t *testing.T) {
	conn := &upFakeConn{up: true, fail: 2}
	h := newUpHarness(t, t.TempDir(), upConfig(2, 0, 0), conn, nil, true)
	defer h.close()
	h.tick(1000)
	h.enqueue("d", []string{"s", "s", "s", "s", "s"}, 0, 1, true)
	if got := conn.messages(); len(got) != 0 {
		t.Fatalf("published %v right after a refusal, want a pause first", got)
	}
	for now := int64(1010); now <= 1000+2*upstreamRetryAfter+10; now += 10 {
		h.tick(now)
	}
	want := []upMessage{
		{"cloud/gw/d/late/s", true, []string{"d-1", "d-2"}},
		{"cloud/gw/d/late/s", true, []string{"d-3", "d-4"}},
		{"cloud/gw/d/late/s", false, []string{"d-5"}},
	}
	if got := conn.messages(); !slices.EqualFunc(got, want, upMessageEqual) {
		t.Errorf("published %v, want %v", got, want)
	}
	if got := testutil.ToFloat64(h.env.metrics.Sent); got != 5 {
		t.Errorf("upstream sent counter %v, want 5", got)
	}
}

func TestUpstreamReportsOutboxSizeAgeAndConnection(t *testing.T) {
	conn := &upFakeConn{}
	h := newUpHarness(t, t.TempDir(), upConfig(10, 0, 0), conn, nil, true)
	defer h.close()
	entries := h.enqueue("d", []string{"s", "s", "s"}, 0, 5_000, true)
	h.tick(12_000)
	m := h.env.metrics
	var bytes int64
	for _, e := range entries {
		bytes += e.Size()
	}
	check := func(when string, records, size, age, up float64) {
		t.Helper()
		got := []float64{
			testutil.ToFloat64(m.OutboxRecords.WithLabelValues("up/d")), testutil.ToFloat64(m.OutboxBytes.WithLabelValues("up/d")),
			testutil.ToFloat64(m.OutboxOldest.WithLabelValues("up/d")), testutil.ToFloat64(m.Connected),
		}
		if want := []float64{records, size, age, up}; !slices.Equal(got, want) {
			t.Errorf("%s: records, bytes, oldest age (s), connected = %v, want %v", when, got, want)
		}
	}
	check("uplink down", 3, float64(bytes), 7, 0)
	conn.setUp(true)
	h.tick(12_010)
	h.tick(12_020)
	check("delivered", 0, 0, 0, 1)
}

func TestUpstreamDropsRecordsWhoseTopicIsInvalidAndGoesOn(t *testing.T) {
	conn := &upFakeConn{up: true}
	h := newUpHarness(t, t.TempDir(), upConfig(10, 0, 0), conn, nil, true)
	defer h.close()
	h.tick(1000)
	h.enqueue("d", []string{"a", "bad\x00", "a"}, 0, 1000, true)
	h.tick(1010)
	h.tick(1020)
	want := []upMessage{{"cloud/gw/d/late/a", false, []string{"d-1"}}, {"cloud/gw/d/late/a", false, []string{"d-3"}}}
	if got := conn.messages(); !slices.EqualFunc(got, want, upMessageEqual) {
		t.Errorf("published %v, want %v", got, want)
	}
	if left := h.seqs(outbox.UpstreamQueue("d")); len(left) != 0 {
		t.Errorf("outbox still holds %v", left)
	}
	if n := testutil.ToFloat64(h.env.metrics.Refused.WithLabelValues("upstream")); n != 1 {
		t.Errorf("edged_publish_refused_total{output=upstream} = %v, want 1", n)
	}
}

// Once a queue's committer is stopping (a reload replaces its device), the actor
// deletes what it delivers itself: a Delivered sent to that committer would be lost,
// and the records shipped again at the next start.
func TestUpstreamDeletesWhatADetachedQueueDeliversItself(t *testing.T) {
	conn := &upFakeConn{up: true, hold: true}
	h := newUpHarness(t, t.TempDir(), upConfig(10, 0, 0), conn, nil, true)
	defer h.close()
	h.enqueue("d", []string{"s", "s"}, 0, 0, true)
	done := make(chan struct{})
	h.system.Root.Send(h.pid, &outbox.Detach{Queue: outbox.UpstreamQueue("d"), Done: done})
	<-done
	if err := h.system.Root.StopFuture(h.committer).Wait(); err != nil {
		t.Fatal(err)
	}
	conn.release()
	if left := h.seqs(outbox.UpstreamQueue("d")); len(left) > 0 {
		t.Errorf("entries %v delivered after the detach are still in the outbox", left)
	}
}
