package actors

import (
	"bytes"
	"fmt"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// BenchmarkRestore100kWindows measures a restart of a device holding 100,000 sensors,
// each with its source and one open window: the time from spawning the topology
// until the first message after the restart is committed and acknowledged (it waits
// behind the restore in the device's mailbox), on the default dispatcher as `run`
// uses it. It reports the mean and the fastest of that time (this machine is shared)
// and the live heap once restored, the store's included.
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
	const t0 = 1_733_140_000_000
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
	fastest := time.Duration(1<<63 - 1)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		topo, err := buildTopology(cfg, store, NewMetrics(), log, nil, &capture{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		// A message that waits longer than spawnTimeout for its source is left to the
		// broker's redelivery; the benchmark routes its first one once restored.
		<-topo.restore.restored()
		acked := make(chan struct{})
		topo.router.route(&Inbound{Topic: "t/0", Payload: []byte(fmt.Sprintf(`{"ts":%d,"v":1}`, t0+200)), QoS: 1, At: 20}, func() { close(acked) })
		topo.tick(30)
		for _, d := range topo.flushAll() {
			<-d
		}
		<-acked
		took := time.Since(start)
		b.StopTimer()
		fastest = min(fastest, took)
		restoredHeap = liveHeap()
		runtime.KeepAlive(topo)
		topo.system.Shutdown()
		b.StartTimer()
	}
	b.ReportMetric(float64(fastest.Milliseconds()), "fastest-ms")
	b.ReportMetric(float64(restoredHeap)/(1<<20), "live-heap-MiB")
}
