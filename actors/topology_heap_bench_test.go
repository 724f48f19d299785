package actors

import (
	"bytes"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/edged/edged/actors/status"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// BenchmarkHeapPerIdleKey measures what one sensor costs while it waits for its next
// reading: its source actor, its window actor with one open window, their statistics,
// and the /status sampler's share after a full lag ring. It reports live heap bytes
// per key (after a GC), the number the memory table of docs/operations.md cites:
// with count and sum, and with make bench's aggregates (a p95 sketch per window).
// It is the heap that 10,000 keys add to a daemon that has 1,000: what a daemon
// holds however many keys it has (Badger's memtable arena, 5 MB here, its caches) is
// not charged to its keys.
//
//	go test -run '^$' -bench HeapPerIdleKey -benchtime 1x ./actors/
func BenchmarkHeapPerIdleKey(b *testing.B) {
	for _, c := range []struct{ name, aggregates string }{
		{"count_sum", "[count, sum(v)]"},
		{"count_avg_min_max_p95", "[count, avg(v), min(v), max(v), p95(v)]"},
	} {
		b.Run(c.name, func(b *testing.B) {
			device := strings.Replace(supervisionDevice, "[count, sum(v)]", c.aggregates, 1)
			for range b.N {
				heapPerIdleKey(b, device)
			}
		})
	}
}

func heapPerIdleKey(b *testing.B, device string) {
	// The first keys bring what a daemon makes once, on first use (Badger's caches,
	// map buckets); the figure is what the next keys add.
	const warm, keys = 1_000, 10_000
	topo, m := heapTopology(b, device)
	addIdleKeys(topo, 0, warm, 1)
	base := liveHeap()
	addIdleKeys(topo, warm, warm+keys, 100)
	actorsHeap := liveHeap()
	s := sampler(m, 0)
	now := time.UnixMilli(t0)
	for i := range int(status.Span / status.Every) {
		s.Sample(now.Add(time.Duration(i) * status.Every))
	}
	withStatus := liveHeap()
	b.ReportMetric(float64(actorsHeap-base)/keys, "B/key")
	b.ReportMetric(float64(withStatus-actorsHeap)/(warm+keys), "status-B/key")
	runtime.KeepAlive(s)
	runtime.KeepAlive(topo)
	topo.system.Shutdown()
}

// t0 is the event time of the benchmark's readings.
const t0 int64 = 1_733_140_000_000

// addIdleKeys gives keys from to to a reading each at processing time at, and
// commits them after two checks (10 ms apart): the first sees the reading, the
// second starts the idle countdown, so their sources sleep until the idle timeout,
// as a waiting sensor's do.
func addIdleKeys(topo *topology, from, to int, at int64) {
	for i := from; i < to; i++ {
		payload := fmt.Sprintf(`{"ts":%d,"v":%d}`, t0+100, i)
		topo.router.route(&Inbound{Topic: fmt.Sprintf("t/%d", i), Payload: []byte(payload), QoS: 1, At: at}, nil)
	}
	topo.tick(at + 10)
	topo.tick(at + 20)
	for _, d := range topo.flushAll() {
		<-d
	}
}

func heapTopology(b *testing.B, device string) (*topology, *Metrics) {
	dev, err := configs.ParseDevice("dev.yaml", []byte(device))
	if err != nil {
		b.Fatal(err)
	}
	cfg := &configs.Daemon{CommitInterval: 50_000_000, Limits: configs.Limits{MaxInflight: configs.DefaultMaxInflight, MaxKeysPerWindow: 1 << 20}, Devices: []*configs.Device{dev}}
	// The keys' writes (a window state, a stream state and a dedup mark each, ~3 MB)
	// must fit in the memtable open before the first key: a flush midway would charge
	// the keys with a new arena and, in memory, the tables holding their state, which
	// a daemon's store keeps on disk. A 1 GiB budget gives 8 MB memtables.
	store, err := persist.Open(persist.Options{Durability: persist.Memory, Memory: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	m := NewMetrics()
	topo, err := buildTopology(cfg, store, m, slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), actor.NewSynchronizedDispatcher(300), &capture{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return topo, m
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
