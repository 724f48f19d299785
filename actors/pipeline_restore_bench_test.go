package actors

import (
	"bytes"
	"fmt"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// BenchmarkRestore100kWindows measures a restart of a device holding 100,000 sensors,
// each with its source and one open window: the time from spawning the topology
// until the first message, routed at once, is committed and acknowledged (it waits
// for the device's saved state to be read, then for at most a chunk of the background
// restore), on the default dispatcher as `run` uses it. It reports the mean and the
// fastest of that time (this machine is shared), the time until every key is back,
// and the live heap then, the store's included.
//
//	go test -run '^$' -bench Restore100kWindows -benchtime 3x ./actors/
func BenchmarkRestore100kWindows(b *testing.B) {
	const keys = 100_000
	dev, err := configs.ParseDevice("dev.yaml", []byte(supervisionDevice))
	if err != nil {
		b.Fatal(err)
	}
	cfg := &configs.Daemon{CommitInterval: 50_000_000, Limits: configs.Limits{MaxInflight: configs.DefaultMaxInflight, MaxKeysPerWindow: 1 << 20}, Devices: []*configs.Device{dev}}
	store, err := persist.Open(persist.Options{Durability: persist.Memory})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	log := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	const t0 int64 = 1_733_140_000_000
	seed, err := buildTopology(cfg, store, NewMetrics(), log, actor.NewSynchronizedDispatcher(300), &capture{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range keys {
		payload := fmt.Sprintf(`{"ts":%d,"v":%d}`, t0+100, i)
		seed.router.route(&Inbound{Topic: fmt.Sprintf("t/%d", i), Payload: []byte(payload), QoS: 1, At: 1}, nil)
		if i%1000 == 999 { // commit before limits.max_inflight holds the route
			seed.tick(10)
			for _, d := range seed.flushAll() {
				<-d
			}
		}
	}
	seed.system.Shutdown()

	var restoredHeap uint64
	var restoredIn time.Duration
	fastest := time.Duration(1<<63 - 1)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		m := NewMetrics()
		topo, err := buildTopology(cfg, store, m, log, nil, &capture{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		acked := make(chan struct{})
		topo.router.route(&Inbound{Topic: "t/0", Payload: []byte(fmt.Sprintf(`{"ts":%d,"v":1}`, t0+200)), QoS: 1, At: 20}, func() { close(acked) })
		// Commit as `run` does, every interval until it is acknowledged: a record
		// for a key still restoring goes through the pipeline and may miss a flush.
		for now := int64(30); !closed(acked); now += 10 {
			topo.tick(now)
			for _, d := range topo.flushAll() {
				<-d
			}
		}
		took := time.Since(start)
		b.StopTimer()
		fastest = min(fastest, took)
		for gaugeValue(b, m.KeysRestoring.WithLabelValues("d", "w")) > 0 {
			time.Sleep(10 * time.Millisecond) // polling the background restore
		}
		restoredIn = time.Since(start)
		restoredHeap = liveHeap()
		runtime.KeepAlive(topo)
		topo.system.Shutdown()
		b.StartTimer()
	}
	b.ReportMetric(float64(fastest.Milliseconds()), "fastest-ms")
	b.ReportMetric(float64(restoredIn.Milliseconds()), "all-restored-ms")
	b.ReportMetric(float64(restoredHeap)/(1<<20), "live-heap-MiB")
}

func gaugeValue(b *testing.B, g prometheus.Gauge) float64 {
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		b.Fatal(err)
	}
	return m.GetGauge().GetValue()
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
