package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/actors"
	"github.com/edged/edged/configs"
	"github.com/edged/edged/internal/sim"
	"github.com/edged/edged/mqtt"
	"github.com/edged/edged/testing/broker"
)

// TestRecordWritesWhatArrivesAsReplayableInput publishes a simulated feed to a
// real Mosquitto while recording, then checks the recording holds every
// message in order with non-decreasing arrival times and replays, and that its
// progress line counted them all.
func TestRecordWritesWhatArrivesAsReplayableInput(t *testing.T) {
	mq := broker.Start(t)
	prefix := fmt.Sprintf("rec%d", time.Now().UnixNano())
	dir := plWriteTree(t, map[string]string{
		"edged.yaml": "broker: {url: " + mq.URL() + ", client_id: " + prefix + "}\n",
		"devices/d.yaml": `device: d
streams:
  - name: s
    topic: ` + prefix + `/+/data
    timestamp: {field: ts, unit: ms}
    key: {topic_segment: 1}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 100ms
    aggregates: [count, avg(temp)]
`,
	})
	cfg, err := configs.Load(dir + "/edged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, term := &broker.SyncBuffer{}, &broker.SyncBuffer{}
	// A progress line on a stand-in terminal, drawn at every flush.
	prog := &progress{w: term, width: 200, now: stepClock(time.Second), label: "record", unit: "readings"}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	recorded := make(chan error, 1)
	go func() {
		_, err := record(ctx, cfg, out, &bytes.Buffer{}, func() { close(ready) }, prog, 0)
		recorded <- err
	}()
	select {
	case <-ready:
	case err := <-recorded:
		t.Fatalf("record stopped before subscribing: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("record did not subscribe within 10s")
	}

	feedCfg := sim.Config{Sensors: 3, Rate: 50, Duration: 300 * time.Millisecond, Disorder: 20 * time.Millisecond,
		Seed: 5, Start: time.Now().UnixMilli(), TopicPrefix: prefix}
	pub, err := mqtt.Connect(context.Background(), mqtt.Options{URL: mq.URL(), ClientID: prefix + "-pub", CleanSession: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close(time.Second)
	feed, _ := sim.NewFeed(feedCfg)
	s := sim.Publish(context.Background(), feed, pub, 1)
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < s.Total && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // polling the recording, flushed every second
	}
	cancel()
	if err := <-recorded; err != nil {
		t.Fatal(err)
	}

	if want := "\rrecord: " + string(appendGrouped(nil, int64(s.Total))) + " readings, "; !strings.Contains(term.String(), want) {
		t.Errorf("the progress line never showed %q: %q", want, term.String())
	}

	feed, _ = sim.NewFeed(feedCfg)
	var last int64
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != s.Total {
		t.Fatalf("recorded %d messages, published %d", len(lines), s.Total)
	}
	for i, l := range lines {
		var got struct {
			At      int64
			Topic   string
			Payload json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d %q: %v", i+1, l, err)
		}
		want, _ := feed.Next()
		if got.Topic != want.Topic || !bytes.Equal(got.Payload, want.Payload) || got.At < last {
			t.Errorf("line %d is %s, want topic %s payload %s at or after %d", i+1, l, want.Topic, want.Payload, last)
		}
		last = got.At
	}
	var results bytes.Buffer
	st, err := actors.Replay(actors.ReplayOptions{Config: cfg, Input: strings.NewReader(out.String()), Output: &results})
	if err != nil || st.Messages != s.Total || st.Results == 0 {
		t.Errorf("replaying the recording: %+v, %v", st, err)
	}
}

// On a terminal edged record draws its line, with the share of --duration
// done, and erases it before its closing words.
func TestRecordShowsProgressOnATerminal(t *testing.T) {
	useClock(t, stepClock(time.Second))
	mq := broker.Start(t)
	dir := plWriteTree(t, map[string]string{
		"edged.yaml":     "broker: {url: " + mq.URL() + "}\n",
		"devices/d.yaml": tuneDevice,
	})
	tty, shown := openTerminal(t, 120)
	var stdout bytes.Buffer
	args := []string{"record", "--config", dir + "/edged.yaml", "--output", dir + "/rec.jsonl", "--duration", "1200ms"}
	if code := dispatch(args, &stdout, tty); code != 0 {
		t.Fatalf("exit %d; the terminal shows %q", code, shown())
	}
	screen := shown()
	for _, want := range []string{"\rrecord: 0 readings, 0/s, 100%, ETA 0s\x1b[K", "\r\x1b[Krecorded 0 messages\r\n"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal lacks %q; it shows %q", want, screen)
		}
	}
}
