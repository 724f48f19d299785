package actors

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged/edged/actors/commit"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// stalledPublisher holds the first publish until release, as a broker that takes a
// while to answer: the sink waits in it meanwhile. Then it acknowledges everything.
type stalledPublisher struct {
	entered chan struct{} // closed when the first publish came
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	got     []string
}

func (p *stalledPublisher) Publish(_ string, _ byte, payload []byte, done func(error)) {
	p.once.Do(func() {
		close(p.entered)
		<-p.release
	})
	p.mu.Lock()
	p.got = append(p.got, string(payload))
	p.mu.Unlock()
	done(nil)
}

func (p *stalledPublisher) published() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

// A restart with a large backlog of results committed but not confirmed published
// (the broker was unreachable for hours) hands them to the sink as live results are:
// no more in memory at a time than the sink's bound, more as confirmations come. It
// had the pipeline read the whole backlog into the sink's mailbox at start.
func TestResultsLeftUnpublishedAreSentAgainWithinTheSinksBound(t *testing.T) {
	const backlog, size = 30_000, 1000
	dev, err := configs.ParseDevice("dev.yaml", []byte(supervisionDevice))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &configs.Daemon{CommitInterval: time.Hour, Limits: configs.Limits{MaxInflight: configs.DefaultMaxInflight}, Devices: []*configs.Device{dev}}
	store, err := persist.Open(persist.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	pad := strings.Repeat("x", size)
	b := store.NewBatch()
	for i := range backlog {
		b.Enqueue(commit.ResultsQueue("d"), outboxEntry{Topic: "out/d", QoS: 1, Payload: fmt.Appendf(nil, `{"n":%d,"pad":%q}`, i, pad)}.Encode())
		b.EndUnit()
		if i%1000 == 999 || i == backlog-1 {
			if err := store.Commit(b); err != nil {
				t.Fatal(err)
			}
			b = store.NewBatch()
		}
	}
	before := liveHeap()

	pub := &stalledPublisher{entered: make(chan struct{}), release: make(chan struct{})}
	topo, err := buildTopology(cfg, store, NewMetrics(), slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), nil, pub, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(topo.system.Shutdown)
	<-topo.restore.restored()
	select {
	case <-pub.entered:
	case <-time.After(time.Minute):
		t.Fatal("the sink published none of the backlog")
	}
	held := int64(liveHeap()) - int64(before)
	if bound := int64(maxSinkInflight+maxSinkQueued) * size; held > bound {
		t.Errorf("with the first publish waiting, the backlog holds %d MB of the heap, more than the sink's bound of %d entries (%d MB)",
			held>>20, maxSinkInflight+maxSinkQueued, bound>>20)
	}
	close(pub.release)

	deadline := time.Now().Add(time.Minute)
	for store.Stats(commit.ResultsQueue("d")).Records > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d results left in the outbox", store.Stats(commit.ResultsQueue("d")).Records, backlog)
		}
		for _, d := range topo.flushAll() {
			<-d
		}
	}
	got := pub.published()
	if len(got) != backlog {
		t.Fatalf("published %d results, want each of the %d once", len(got), backlog)
	}
	for i, p := range got {
		if !strings.HasPrefix(p, fmt.Sprintf(`{"n":%d,`, i)) {
			t.Fatalf("result %d published was %.20s…, want every result once, in order", i, p)
		}
	}
}
