package e2e

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

// The burst suite fires many windows in one commit interval: every key of one stream
// has a reading in the same window, then one reading moves the stream's watermark past
// it. Everything that follows — the results, their deliveries, the commit after them —
// must fit Badger's transaction limit, whatever the number of keys.
//
//	go test ./testing/e2e -run 'Burst' -v

// burstKeys is well above the ~7,000 changes that fit one transaction.
const burstKeys = 20_000

// burstLimits lets every key of the burst have its window actor.
const burstLimits = "limits: {max_keys_per_window: 20001}"

func TestBurstOf20000WindowsFiringAtOncePublishesEveryResult(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := burstConfig(t, mq.URL(), fmt.Sprintf("burst-%d", time.Now().UnixNano()), burstLimits)
	coll := crashCollect(t, s)
	e := crashStart(t, bin, s.config)
	events := burstEvents()
	if err := burstPublish(s, events, 0, len(events)); err != nil {
		t.Fatal(err)
	}
	crashReport(t, crashAwait(t, coll, events, false))
	if n := e.metric("edged_commit_errors_total"); n != 0 {
		t.Errorf("%v commits failed", n)
	}
}

func TestBurstOf20000WindowsSurvivesAKillWhileResultsAreDelivered(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq := broker.Start(t)
	s := burstConfig(t, mq.URL(), fmt.Sprintf("burstkill-%d", time.Now().UnixNano()), burstLimits)
	coll := crashCollect(t, s)
	e := crashStart(t, bin, s.config)
	events := burstEvents()
	if err := burstPublish(s, events, 0, len(events)-1); err != nil {
		t.Fatal(err)
	}
	// The trigger last, so the kill lands while the burst's results are published
	// and their deliveries committed.
	if err := burstPublish(s, events, len(events)-1, len(events)); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, crashFinalTimeout, "the burst's first results", func() bool {
		r, _, _ := coll.snapshot()
		return len(r) > burstKeys/10
	})
	e.kill()
	r, _, _ := coll.snapshot()
	t.Logf("killed after %d results arrived", len(r))
	e.start()
	crashReport(t, crashAwait(t, coll, events, false))
}

// burstConfig writes the crash suite's device with every key on one topic (one
// stream, one watermark), the key in the payload.
func burstConfig(t testing.TB, url, prefix, limits string) crashSetup {
	t.Helper()
	dir := t.TempDir()
	s := crashSetup{broker: url, prefix: prefix, dataDir: filepath.Join(dir, "data"), config: filepath.Join(dir, "edged.yaml")}
	s.write(t, dir, limits, crashLayout{topic: "data", key: "{field: k}", interval: "200ms"})
	return s
}

// burstEvents is one reading per key in the first window, then the trigger: a
// reading of k0 far enough ahead to fire them all.
func burstEvents() []oracle.Event {
	events := make([]oracle.Event, 0, burstKeys+1)
	for i := range burstKeys {
		events = append(events, oracle.Event{
			Key:    "k" + strconv.Itoa(i),
			TS:     crashBaseTS + int64(i%crashWindowMS),
			Values: []windows.Value{{Kind: windows.Number, Num: float64(i%200)/4 - 25}},
		})
	}
	return append(events, oracle.Event{
		Key: "k0", TS: crashBaseTS + 5*crashWindowMS,
		Values: []windows.Value{{Kind: windows.Number, Num: 1}},
	})
}

// burstPublish publishes events[from:to] with QoS 1 to the one topic and waits for
// every PUBACK.
func burstPublish(s crashSetup, events []oracle.Event, from, to int) error {
	return s.publish(events, from, to, publishing{
		topic: func(oracle.Event) string { return s.prefix + "/data" },
		payload: func(e oracle.Event, seq int) []byte {
			return fmt.Appendf(nil, `{"k":%q,"ts":%d,"v":%s,"seq":%d}`, e.Key, e.TS, strconv.FormatFloat(e.Values[0].Num, 'g', -1, 64), seq)
		},
	})
}
