package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/natsjs"
	"github.com/edged/edged/testing/broker"
	"github.com/edged/edged/testing/harness"
	"github.com/edged/edged/testing/natsbroker"
)

// The fleet suite: two edged processes with different host names take device
// files from one JetStream key-value bucket, pushed with `edged fleet push`, and
// apply them without a restart.
//
//	go test ./testing/e2e -run 'Fleet' -v

// fleetShared is the device file every gateway takes; bound is its watermark bound.
func fleetShared(bound string) string {
	return `device: shared
streams:
  - name: s
    topic: fleet-shared/+/data
    timestamp: {field: ts, unit: ms}
    watermark: {max_out_of_orderness: ` + bound + `}
windows:
  - {name: w, stream: s, type: tumbling, size: 5s, aggregates: [count]}
`
}

const fleetExtra = `device: extra
streams:
  - name: s
    topic: fleet-extra/+/data
    timestamp: {field: ts, unit: ms}
windows:
  - {name: w, stream: s, type: tumbling, size: 5s, aggregates: [count]}
  - {name: w10, stream: s, type: tumbling, size: 10s, aggregates: ["max(v)"]}
`

func TestFleetConfigFromAKVBucketIsAppliedLiveOnTwoGateways(t *testing.T) {
	t.Parallel()
	bin := crashBuild(t)
	mq, srv := broker.Start(t), natsbroker.Start(t)
	dir := t.TempDir()
	push := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"fleet", "push", "--kv", srv.URL(), "--bucket", "fleet", "--prefix", "e2e"}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// mustPush returns the revision of the last file written: the bucket counts
	// revisions over all keys, the gateways' status keys included.
	mustPush := func(args ...string) uint64 {
		t.Helper()
		out, err := push(args...)
		m := regexp.MustCompile(`revision (\d+)\n$`).FindStringSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("edged fleet push %v: %v\n%s", args, err, out)
		}
		rev, _ := strconv.ParseUint(m[1], 10, 64)
		return rev
	}
	shared := filepath.Join(dir, "all", "shared.yaml")
	crashWriteFile(t, shared, fleetShared("200ms"))
	rev1 := mustPush("--all", shared) // creates the bucket

	stamp := time.Now().UnixNano()
	gw := map[string]*crashEdged{}
	localFile := map[string]string{}
	for _, host := range []string{"gw-a", "gw-b"} {
		s := crashConfigIn(t, mq.URL(), fmt.Sprintf("fleet-%s-%d", host, stamp), "",
			fmt.Sprintf("fleet: {kv: {url: %q, bucket: fleet, prefix: e2e, host: %s}}\n", srv.URL(), host))
		gw[host] = crashStart(t, bin, s.config)
		localFile[host] = filepath.Join(filepath.Dir(s.config), "devices", "crash.yaml")
	}
	applied := func(host string, rev uint64) func() bool {
		return func() bool { return fleetStatus(t, gw[host].httpAddr).Fleet.Revision >= rev }
	}
	for host := range gw {
		harness.Eventually(t, reloadWait, host+" applied the shared file", applied(host, rev1))
	}
	// The apply latency: from the start of `edged fleet push` (a process that
	// connects, writes and exits) and from its end to the gateway's /status showing
	// the revision.
	var latencies []string
	pushAndWait := func(hosts []string, args ...string) uint64 {
		t.Helper()
		start := time.Now()
		rev := mustPush(args...)
		pushed := time.Now()
		for _, h := range hosts {
			harness.Eventually(t, reloadWait, fmt.Sprintf("%s applied revision %d", h, rev), applied(h, rev))
			latencies = append(latencies, fmt.Sprintf("%s: %v from the push's start, %v from its end", h,
				time.Since(start).Round(time.Millisecond), time.Since(pushed).Round(time.Millisecond)))
		}
		return rev
	}

	// A new device with a new window, for gw-a only.
	extra := filepath.Join(dir, "gw-a", "extra.yaml")
	crashWriteFile(t, extra, fleetExtra)
	pushAndWait([]string{"gw-a"}, "--host", "gw-a", extra)
	if a, b := fleetStatus(t, gw["gw-a"].httpAddr), fleetStatus(t, gw["gw-b"].httpAddr); a.Devices != 3 || b.Devices != 2 || b.Fleet.Revision != rev1 {
		t.Errorf("after the push to gw-a: gw-a runs %d devices, gw-b %d at revision %d; want 3 and 2 at %d", a.Devices, b.Devices, b.Fleet.Revision, rev1)
	}

	// A change of a local device file keeps the fleet's devices running.
	before := fleetStatus(t, gw["gw-a"].httpAddr).Generation
	body, err := os.ReadFile(localFile["gw-a"])
	if err != nil {
		t.Fatal(err)
	}
	crashWriteFile(t, localFile["gw-a"], strings.Replace(string(body), "max_future_skew: 0s", "max_future_skew: 1h", 1))
	harness.Eventually(t, reloadWait, "gw-a reloaded its local file", func() bool {
		return fleetStatus(t, gw["gw-a"].httpAddr).Generation > before
	})
	if st := fleetStatus(t, gw["gw-a"].httpAddr); st.Devices != 3 {
		t.Errorf("after a local reload gw-a runs %d devices, want 3: %+v", st.Devices, st)
	}

	// A changed bound for every gateway.
	crashWriteFile(t, shared, fleetShared("400ms"))
	rev3 := pushAndWait([]string{"gw-a", "gw-b"}, "--all", shared)
	for host, e := range gw {
		if n := upMetric(t, e.httpAddr, "edged_fleet_revision", nil); n != float64(rev3) {
			t.Errorf("%s: edged_fleet_revision %v, want %d", host, n, rev3)
		}
		if !strings.Contains(e.logs.String(), `msg="device changed" device=shared streams_added=[] streams_removed=[] streams_changed=[s]`) {
			t.Errorf("%s did not log the shared device's stream as changed", host)
		}
	}

	// An invalid file is refused by the CLI, and nothing is written.
	crashWriteFile(t, shared, strings.Replace(fleetShared("400ms"), "size: 5s", "size: -5s", 1))
	out, err := push("--all", shared)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, shared+":8: windows[0].size: ") || !strings.Contains(out, "nothing written") {
		t.Fatalf("an invalid push: %v\n%s\nwant exit 1 and the file:line error", err, out)
	}

	// The watches outlive a restart of the NATS server: the next change still arrives.
	srv.Restart()
	restarted := time.Now()

	// Written to the bucket directly, it is ignored by both, with the error reported.
	kv := fleetBucket(t, srv.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bad, err := kv.Put(ctx, "e2e.all.devices.shared.yaml", []byte(strings.Replace(fleetShared("400ms"), "size: 5s", "size: -5s", 1)))
	if err != nil {
		t.Fatal(err)
	}
	for host, e := range gw {
		harness.Eventually(t, reloadWait, host+" reported the invalid revision", func() bool {
			r := fleetStatus(t, e.httpAddr).Fleet.Rejected
			return r != nil && r.Revision == bad
		})
		t.Logf("%s saw the revision written %v after the NATS restart", host, time.Since(restarted).Round(time.Millisecond))
		st := fleetStatus(t, e.httpAddr)
		if st.Fleet.Revision != rev3 || !strings.Contains(st.Fleet.Rejected.Error, "e2e.all.devices.shared.yaml:8: windows[0].size: ") ||
			!strings.Contains(st.LastError, "e2e.all.devices.shared.yaml:8:") {
			t.Errorf("%s /status after the invalid revision: %+v", host, st)
		}
		if n := upMetric(t, e.httpAddr, "edged_fleet_rejected_total", nil); n != 1 {
			t.Errorf("%s: edged_fleet_rejected_total %v, want 1", host, n)
		}
	}

	// edged fleet status lists both, with what each applied and ignored.
	var listing string
	row := regexp.MustCompile(fmt.Sprintf(`(?m)^gw-[ab] +%d +%d +rejected %d: e2e.all.devices.shared.yaml:8: windows\[0\].size: `, rev3, bad, bad))
	harness.Eventually(t, reloadWait, "edged fleet status to show both gateways' latest reports", func() bool {
		out, err := exec.Command(bin, "fleet", "status", "--kv", srv.URL(), "--bucket", "fleet", "--prefix", "e2e").CombinedOutput()
		if err != nil {
			t.Fatalf("edged fleet status: %v\n%s", err, out)
		}
		listing = string(out)
		return len(row.FindAllString(listing, -1)) == 2
	})
	t.Logf("edged fleet status:\n%s", listing)

	// Without the cloud, a restarted gateway runs the last good device files.
	srv.Stop()
	gw["gw-b"].kill()
	gw["gw-b"].start()
	st := fleetStatus(t, gw["gw-b"].httpAddr)
	if st.Fleet.Revision != rev3 || !st.Fleet.FromDisk || st.Devices != 2 {
		t.Errorf("gw-b restarted without NATS: %+v; want revision %d from disk with 2 devices", st, rev3)
	}
	t.Logf("config apply latency (push to /status showing the revision):\n%s", strings.Join(latencies, "\n"))
}

type fleetStatusDoc struct {
	Generation int64  `json:"generation"`
	Devices    int    `json:"devices"`
	LastError  string `json:"last_error"`
	Fleet      struct {
		Revision uint64 `json:"revision"`
		FromDisk bool   `json:"from_disk"`
		Rejected *struct {
			Revision uint64 `json:"revision"`
			Error    string `json:"error"`
		} `json:"rejected"`
	} `json:"fleet"`
}

func fleetStatus(t testing.TB, addr string) fleetStatusDoc {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Config fleetStatusDoc `json:"config"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st.Config
}

// fleetBucket opens the bucket as an operator's tool would, to write to it directly.
func fleetBucket(t testing.TB, url string) *natsjs.KV {
	t.Helper()
	p, err := natsjs.Connect(natsjs.Options{URL: url, Name: "e2e", MaxPending: 1, AckTimeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	kv, err := p.KV(ctx, "fleet", false)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}
