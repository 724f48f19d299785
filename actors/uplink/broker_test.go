package uplink

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
)

// upCloud is the cloud side: a persistent-session subscriber to everything edged
// ships, collecting record ids in arrival order.
type upCloud struct {
	mu  sync.Mutex
	ids []string
}

func startUpCloud(t *testing.T, url string) *upCloud {
	t.Helper()
	c := &upCloud{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, err := mqtt.Connect(ctx, mqtt.Options{
		URL: url, ClientID: "cloud", CleanSession: false,
		Subscriptions: []mqtt.Subscription{{Filter: "cloud/gw/#", QoS: 1}},
		Logger:        slog.New(slog.DiscardHandler),
		Handler: func(m *mqtt.Message) {
			ids := upRecordIDs(m.Payload)
			c.mu.Lock()
			c.ids = append(c.ids, ids...)
			c.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(0) })
	return c
}

// unique counts the distinct ids received.
func (c *upCloud) unique() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	for _, id := range c.ids {
		seen[id] = true
	}
	return len(seen)
}

// firstSeqs lists, per device, the seqs in the order their first copy arrived.
func (c *upCloud) firstSeqs(t testing.TB) map[string][]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	out := map[string][]uint64{}
	for _, id := range c.ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		dev, seq := upIDSeq(t, id)
		out[dev] = append(out[dev], seq)
	}
	return out
}

// startUpEdged is one run of edged's upstream side over the state in dir: the link to
// the upstream broker, the actor, and the ticker that drives it.
func startUpEdged(t testing.TB, dir string, cfg configs.Upstream) (h *upHarness, stop func()) {
	t.Helper()
	link, err := Start(context.Background(), cfg, slog.New(slog.DiscardHandler), newTestMetrics())
	if err != nil {
		t.Fatal(err)
	}
	h = newUpHarness(t, dir, cfg, link, link, false)
	done, ticking := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ticking)
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tk.C:
				h.tick(now.UnixMilli())
			}
		}
	}()
	return h, func() {
		close(done)
		<-ticking
		h.close()
		link.Close()
	}
}

func TestUpstreamOutageAndRestartDeliverEveryRecordInOrder(t *testing.T) {
	up := broker.Start(t)
	cloud := startUpCloud(t, up.URL())
	cfg := upConfig(20, 50*time.Millisecond, 2000)
	cfg.URL, cfg.ClientID = up.URL(), "edged-upstream"
	dir := t.TempDir()
	devices := []string{"a", "b"}

	h, stop := startUpEdged(t, dir, cfg)
	upEventually(t, 10*time.Second, "edged connected to the upstream broker", h.link.Connected)
	n := map[string]int{}
	h.enqueueRounds(devices, n, 3)
	upEventually(t, 10*time.Second, "the first 60 records reached the cloud", func() bool { return cloud.unique() == 60 })

	up.Stop()
	upEventually(t, 10*time.Second, "edged saw the uplink drop", func() bool { return !h.link.Connected() })
	h.enqueueRounds(devices, n, 10)
	stop() // edged stops during the outage; its outbox is on disk

	_, stop = startUpEdged(t, dir, cfg)
	defer stop()
	up.Restart()
	upEventually(t, 20*time.Second, "all 260 records reached the cloud after the outage", func() bool { return cloud.unique() == 260 })
	for dev, seqs := range cloud.firstSeqs(t) {
		if want := seqRange(1, uint64(n[dev])); !slices.Equal(seqs, want) {
			t.Errorf("device %s: records arrived as %v, want every seq in order %v", dev, seqs, want)
		}
	}
}
