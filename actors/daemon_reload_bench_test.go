package actors

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/persist"
)

// BenchmarkReloadDeviceWith1000Keys measures a live reload of a device holding
// 1,000 keys with open windows, on a store on disk and the default dispatcher, as
// in edged run: from Apply until the new pipeline has restored every key and
// committed (a flush answered). The change (allowed_lateness) keeps every window's
// state, so all 1,000 keys are restored; intake is paused for the part of it before
// the new pipeline starts.
//
//	go test -run '^$' -bench ReloadDevice ./actors/
func BenchmarkReloadDeviceWith1000Keys(b *testing.B) {
	const keys = 1000
	d, _, _, path := reloadDaemon(b, map[string]string{"a": reloadDeviceFile("a")},
		persist.Options{Dir: b.TempDir(), Durability: persist.Process}, nil)
	for k := range keys {
		d.topo.router.route(&Inbound{Topic: fmt.Sprintf("a/k%d", k), Payload: []byte(`{"ts":1733140000100,"v":1}`), QoS: 1, At: 1}, nil)
	}
	for _, done := range d.topo.flushAll() {
		<-done
	}
	var devices [2][]*configs.Device
	for i, lateness := range []string{"1s", "2s"} {
		text := strings.Replace(reloadDeviceFile("a"), "size: 1s, aggregates: [count, sum(v)]", "size: 1s, allowed_lateness: "+lateness+", aggregates: [count, sum(v)]", 1)
		dev, err := configs.ParseDevice(filepath.Join(filepath.Dir(path), "a.yaml"), []byte(text))
		if err != nil {
			b.Fatal(err)
		}
		devices[i] = []*configs.Device{dev}
	}
	ctx := context.Background()
	i, heldMS := 0, int64(0)
	for b.Loop() {
		diff, err := d.Apply(ctx, devices[i%2])
		if err != nil || len(diff.Changed) != 1 {
			b.Fatalf("reload %d: %v, %+v", i, err, diff)
		}
		i++
		heldMS += d.reload.snapshot().LastHeldMS
		for _, done := range d.topo.flushAll() { // answered once the pipeline restored every key
			<-done
		}
	}
	b.StopTimer()
	var m dto.Metric
	if err := d.metrics.Keys.WithLabelValues("a", "w").Write(&m); err != nil || m.GetGauge().GetValue() != keys {
		b.Fatalf("window w has %v keys after the reloads (%v), want %d", m.GetGauge().GetValue(), err, keys)
	}
	b.ReportMetric(float64(heldMS)/float64(i), "ms-held/op")
}
