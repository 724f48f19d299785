package e2e

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/sim"
	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
)

// TestLiveRunAndReplayOfTheSameFeedAgree publishes a simulated feed through a
// real Mosquitto into edged run, replays the same feed (same seed and start)
// from a file, and compares the final result of every window. The watermark
// bound exceeds the feed's disorder and arrival order is the feed's order, so
// nothing is late in either run; the silent sensor's last window fires live by
// advance-mode idleness and in replay at the end of input.
func TestLiveRunAndReplayOfTheSameFeedAgree(t *testing.T) {
	t.Parallel()
	const seed = 11
	t.Logf("seed %d", seed)
	mq := broker.Start(t)
	prefix := fmt.Sprintf("live%d", time.Now().UnixNano())
	path := harness.WriteConfig(t, daemonYAML("process", mq.URL(), prefix), map[string]string{"dev.yaml": tumblingDevice{
		device: "dev", stream: "s", topic: prefix + "/+/data", qos: 1,
		watermark:  "{strategy: bounded, max_out_of_orderness: 300ms, interval: 20ms, idle_timeout: 400ms, idle_mode: advance}",
		aggregates: replayAggregates,
		output:     prefix + "/out/{key}",
	}.yaml()})
	feedCfg := sim.Config{
		Sensors: 5, Rate: 20, Duration: 3 * time.Second, Disorder: 200 * time.Millisecond,
		Silent: 1, SilentAfter: 1500 * time.Millisecond, Seed: seed, Start: time.Now().UnixMilli(), TopicPrefix: prefix,
	}

	// Replay first: it says how many windows the live run must deliver.
	cfg, err := configs.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var input, out bytes.Buffer
	feed, _ := sim.NewFeed(feedCfg)
	if _, err := sim.WriteReplay(&input, feed); err != nil {
		t.Fatal(err)
	}
	if _, err := actors.Replay(actors.ReplayOptions{Config: cfg, Input: &input, Output: &out}); err != nil {
		t.Fatalf("replay: %v", err)
	}
	replayed, late, _ := replayParse(t, out.Bytes())
	if len(late) > 0 {
		t.Fatalf("replay reported %d late records; the feed's disorder is within the bound", len(late))
	}
	want := harness.Latest(replayed)

	coll := harness.Collect(t, mq.URL(), prefix+"/out/#")
	harness.Start(t, path)
	pub := connect(t, "publisher", mqtt.Options{URL: mq.URL(), ClientID: prefix + "-sim", CleanSession: true,
		Logger: slog.New(slog.DiscardHandler)})
	feed, _ = sim.NewFeed(feedCfg)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if s := sim.Publish(ctx, feed, pub, 1); s.Failed > 0 {
		t.Fatalf("%d of %d publishes failed", s.Failed, s.Total)
	}
	harness.Eventually(t, 10*time.Second, fmt.Sprintf("the %d windows replay reported", len(want)), func() bool {
		return len(harness.Latest(coll.Results(t))) >= len(want)
	})

	got := harness.Latest(coll.Results(t))
	aggs := cfg.Devices[0].Windows[0].Operator().Aggregates
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			t.Errorf("window %+v: replayed but not delivered live", id)
			continue
		}
		if g.End != w.End || g.Revision != w.Revision {
			t.Errorf("window %+v: live ends %d at revision %d, replay %d at revision %d", id, g.End, g.Revision, w.End, w.Revision)
		}
		if err := oracle.Equal(replayValues(g, aggs), replayValues(w, aggs), aggs); err != nil {
			t.Errorf("window %+v: live differs from replay: %v", id, err)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("window %+v: delivered live but not replayed", id)
		}
	}
	t.Logf("%d windows agree", len(want))
}
