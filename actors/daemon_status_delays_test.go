package actors

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/watermark"
	"github.com/edged/edged/watermark/tune"
)

const delayDevice = `
device: d
streams:
  - name: s
    topic: t/+
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
    watermark: {strategy: bounded, max_out_of_orderness: 200ms, max_future_skew: 1m, interval: 10ms}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 1s
    aggregates: [count]
`

// delaysOf samples the status of m and returns its delay row for device d, stream s.
func delaysOf(t *testing.T, m *Metrics, now int64) status.DelayStatus {
	t.Helper()
	s := sampler(m, 0)
	s.Sample(time.UnixMilli(now))
	for _, x := range s.Snapshot().Delays {
		if x.Device == "d" && x.Definition == "s" {
			return x
		}
	}
	t.Fatal("no delay row for device d, stream s")
	return status.DelayStatus{}
}

// The same readings go through the daemon's sources and through edged tune's code:
// /status reports the same readings, the same count later than the bound, the max
// exactly, and each quantile at or at most one bucket (1/16) above tune's.
func TestStatusDelaysAgreeWithTune(t *testing.T) {
	topo, _, _ := newTestTopology(t, delayDevice)
	const seed = 4
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	cfg := watermark.Config{Strategy: watermark.Bounded, MaxOutOfOrderness: 200, MaxFutureSkew: 60_000}
	tuned := map[string]*tune.Stream{}
	at := int64(1000)
	for i := range 6000 {
		topic := fmt.Sprintf("t/%c", 'a'+r.IntN(3))
		ts := 1_733_140_000_000 + int64(i)*20 // the device's clock
		switch x := r.IntN(100); {
		case x < 60: // on time
		case x < 97:
			ts -= r.Int64N(1 << r.IntN(12)) // late by up to 2 s, mostly much less
		default:
			ts += 3_600_000 // an hour ahead: the skew guard refuses it, in both
		}
		at += r.Int64N(15)
		topo.router.route(&Inbound{Topic: topic, Payload: fmt.Appendf(nil, `{"ts":%d}`, ts), At: at}, nil)
		if tuned[topic] == nil {
			tuned[topic] = tune.NewStream(cfg)
		}
		tuned[topic].Observe(ts, at)
	}
	pooled := tune.Pool(tuned["t/a"], tuned["t/b"], tuned["t/c"])
	got := delaysOf(t, topo.env.metrics, at)

	if got.Readings != int64(pooled.Readings) || pooled.Future == 0 {
		t.Fatalf("/status counts %d readings, tune %d (%d refused by the skew guard)", got.Readings, pooled.Readings, pooled.Future)
	}
	late, frac := pooled.Late(200)
	if got.LaterThanBound != int64(late) || *got.MaxOutOfOrdernessMS != 200 || math.Abs(got.LaterThanBoundFraction*1e6-float64(frac)) >= 1 {
		t.Errorf("later than 200 ms: /status %d (%v, bound %d), tune %d (%d ppm)", got.LaterThanBound, got.LaterThanBoundFraction, *got.MaxOutOfOrdernessMS, late, frac)
	}
	for i, v := range []*int64{got.P50MS, got.P90MS, got.P99MS, got.P999MS, got.MaxMS} {
		q := tune.Percentiles[i]
		want, _ := pooled.Delays.Quantile(q)
		if v == nil || *v < want || *v > want+want/16 || (q == tune.Whole && *v != want) {
			t.Errorf("quantile %d ppm: /status %v, tune %d", q, v, want)
		}
		t.Logf("quantile %7d ppm: /status %d ms, tune %d ms", q, *v, want)
	}
}

// A reload that changes a stream's bound starts its delay statistics afresh (the
// late count is against one bound); one that leaves the stream alone keeps them.
func TestReloadStartsTheDelaysAfreshOnlyWhenTheBoundChanges(t *testing.T) {
	d, _, logs, path := reloadTestDaemon(t, map[string]string{"a": reloadDeviceFile("a")})
	publish := func(at int64, ts int64) {
		d.topo.router.route(&Inbound{Topic: "a/k", Payload: fmt.Appendf(nil, `{"ts":%d,"v":1}`, ts), QoS: 1, At: at}, func() {})
	}
	row := func() status.DelayStatus {
		t.Helper()
		s := sampler(d.metrics, 0)
		s.Sample(time.UnixMilli(1_733_140_000_000))
		if st := s.Snapshot(); len(st.Delays) == 1 {
			return st.Delays[0]
		}
		t.Fatal("no single delay row")
		return status.DelayStatus{}
	}
	reload := func(device string) {
		t.Helper()
		writeReloadFiles(t, filepath.Dir(path), map[string]string{"a": device})
		cfg, err := configs.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Reload(context.Background(), cfg); err != nil {
			t.Fatalf("reload refused: %v\n%s", err, logs)
		}
	}
	publish(1, 1_733_140_000_300)
	publish(2, 1_733_140_000_100) // 200 ms behind
	if x := row(); x.Readings != 2 || x.LaterThanBound != 1 || *x.MaxMS != 200 {
		t.Fatalf("before the reload: %+v", x)
	}

	w2 := strings.Replace(reloadDeviceFile("a"), "size: 1s, aggregates: [count]}", "size: 2s, aggregates: [count]}", 1)
	reload(w2) // a window changes, the stream does not
	publish(3, 1_733_140_000_400)
	if x := row(); x.Readings != 3 || x.LaterThanBound != 1 {
		t.Fatalf("after a reload that kept the stream: %+v", x)
	}

	reload(strings.Replace(w2, "max_out_of_orderness: 0s", "max_out_of_orderness: 500ms", 1))
	publish(4, 1_733_140_000_500)
	publish(5, 1_733_140_000_300) // 200 ms behind
	if x := row(); x.Readings != 2 || x.LaterThanBound != 0 || *x.MaxOutOfOrdernessMS != 500 || *x.MaxMS != 200 {
		t.Fatalf("after a reload that changed the bound: %+v (max %d, bound %d)", x, *x.MaxMS, *x.MaxOutOfOrdernessMS)
	}
}
