package fleet

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/edged/edged/configs"
	"github.com/edged/edged/natsjs"
	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
)

func deviceFile(id string) string {
	return "device: " + id + `
streams:
  - {name: s, topic: "` + id + `/+", timestamp: {field: ts, unit: ms}}
windows:
  - {name: w, stream: s, type: tumbling, size: 1s, aggregates: [count]}
`
}

// The apply step's rules, on a running daemon without NATS: a gateway's own file
// replaces a shared one of the same name, an invalid revision is ignored and
// reported once while other keys go on, a delete removes the file, and the set
// applied is what the copy on disk holds.
func TestFleetApplyTakesTheNewestValidRevisionOfEachKey(t *testing.T) {
	mq := broker.Start(t)
	path := harness.WriteConfig(t, `durability: memory
http: {listen: ""}
broker: {url: "`+mq.URL()+`"}
fleet: {kv: {url: "nats://127.0.0.1:1", prefix: e, host: gw}}
`, map[string]string{"loc.yaml": deviceFile("loc")})
	e := harness.Start(t, path)
	f, kept := newSync(e.Config, slog.New(slog.DiscardHandler))
	if kept != nil {
		t.Fatalf("a first start kept %d devices", len(kept))
	}
	f.d = e.Daemon
	e.StartFleet(f.k.Bucket, f.k.Host, 0)
	keys := configs.FleetKeys{Prefix: "e"}
	put := func(host, file, body string, rev uint64) natsjs.Entry {
		return natsjs.Entry{Key: keys.Device(host, file), Value: []byte(body), Revision: rev}
	}
	ctx := context.Background()
	local := e.Config.Devices[:1]
	running := func() []string {
		var ids []string
		for _, d := range f.Devices() {
			ids = append(ids, d.ID)
		}
		return ids
	}
	check := func(step string, rev uint64, rejected uint64, ids ...string) {
		t.Helper()
		st := e.Fleet()
		var rej uint64
		if st.Rejected != nil {
			rej = st.Rejected.Revision
		}
		if st.Revision != rev || rej != rejected || !slices.Equal(running(), ids) {
			t.Errorf("%s: revision %d, rejected %d, fleet devices %v; want %d, %d, %v", step, st.Revision, rej, running(), rev, rejected, ids)
		}
	}

	f.Apply(ctx, []natsjs.Entry{put(configs.FleetAllHost, "a.yaml", deviceFile("shared"), 1), put("gw", "a.yaml", deviceFile("own"), 2)}, local)
	check("own file over the shared one", 2, 0, "own")

	bad := strings.Replace(deviceFile("extra"), "size: 1s", "size: -1s", 1)
	f.Apply(ctx, []natsjs.Entry{put("gw", "x.yaml", bad, 3)}, local)
	check("an invalid revision", 2, 3, "own")
	if err := e.Fleet().Rejected.Error; !strings.HasPrefix(err, "e.gw.devices.x.yaml:5: windows[0].size: ") {
		t.Errorf("the rejection says %q; want the key, line and field", err)
	}

	f.Apply(ctx, []natsjs.Entry{put(configs.FleetAllHost, "b.yaml", deviceFile("other"), 4)}, local)
	check("another key while one is ignored", 4, 3, "other", "own")
	if n := gathered(t, e.Metrics().Registry, "edged_fleet_rejected_total"); n != 1 {
		t.Errorf("edged_fleet_rejected_total %v: an ignored revision is reported once", n)
	}

	f.Apply(ctx, []natsjs.Entry{{Key: keys.Device("gw", "a.yaml"), Revision: 5, Deleted: true}}, local)
	check("the own file deleted: the shared one runs", 5, 3, "shared", "other")

	f.Apply(ctx, []natsjs.Entry{put("gw", "x.yaml", deviceFile("extra"), 6)}, local)
	check("the invalid key fixed", 6, 0, "shared", "other", "extra")

	// Valid alone, but not with the rest: a device id taken, results upstream
	// without an upstream. Ignored, and the change beside it applies.
	f.Apply(ctx, []natsjs.Entry{
		put("gw", "dup.yaml", deviceFile("loc"), 7),
		put("gw", "up.yaml", strings.Replace(deviceFile("up"), "aggregates: [count]", "aggregates: [count], upstream_results: true", 1), 8),
		put("gw", "z.yaml", deviceFile("zed"), 9),
	}, local)
	check("revisions that do not fit the set", 9, 8, "shared", "other", "extra", "zed")
	if err := e.Fleet().Rejected.Error; !strings.Contains(err, `e.gw.devices.dup.yaml:1: device: "loc" is already the id of`) ||
		!strings.Contains(err, "e.gw.devices.up.yaml:5: windows[0].upstream_results: needs an upstream broker") {
		t.Errorf("the rejection says %q; want both keys named", err)
	}
	f.Apply(ctx, []natsjs.Entry{{Key: keys.Device("gw", "dup.yaml"), Revision: 10, Deleted: true}, {Key: keys.Device("gw", "up.yaml"), Revision: 11, Deleted: true}}, local)
	check("the misfits deleted", 11, 0, "shared", "other", "extra", "zed")

	_, again := newSync(e.Config, slog.New(slog.DiscardHandler))
	var ids []string
	for _, d := range again {
		ids = append(ids, d.ID)
	}
	if !slices.Equal(ids, []string{"shared", "other", "extra", "zed"}) {
		t.Errorf("a restart starts with %v from the copy on disk", ids)
	}
}

// gathered is the value of the counter or gauge called name in reg.
func gathered(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			m := mf.GetMetric()[0]
			return m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}
