package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/edged/edged/mqtt"
)

// With -ekuiper, the low-rate rows run LF Edge eKuiper (the closest peer: Go, edge,
// MQTT, windows) on the same feed right after each edged trial, and hold edged to
// what eKuiper spent in the same run rather than to a range measured on another
// day: on a shared VM the cost of a context switch drifts by a fifth over an hour.
// `make ekuiper` builds kuiperd and its etc/ into .cache/ekuiper.
//
// eKuiper gets the bench's window: per sensor, 10 s tumbling, count, avg, min, max
// and the 95th percentile of temp, event time from ts with 500 ms of lateness, each
// row published to the same broker at the feed's QoS.
const (
	ekuiperStream = `CREATE STREAM s (sensor STRING, ts BIGINT, temp FLOAT, hum FLOAT) WITH (DATASOURCE="sensors/+/data", TYPE="mqtt", FORMAT="json", CONF_KEY="default", TIMESTAMP="ts")`
	ekuiperRule   = `SELECT sensor, count(*) AS cnt, avg(temp) AS avg_temp, min(temp) AS min_temp, max(temp) AS max_temp, percentile_cont(temp, 0.95) AS p95_temp FROM s GROUP BY sensor, TumblingWindow(ss, 10)`
	ekuiperOut    = "ekuiper/out"
	ekuiperStart  = 30 * time.Second // kuiperd up, its rule running and subscribed
)

// peerTrial is eKuiper's run of a gateway trial's feed.
type peerTrial struct {
	sent    int
	results int64 // rows eKuiper published within the CPU window
	due     int   // windows whose end the feed's sensors passed, as edged's trial requires
	cpu     float64
	load    string
}

func (t *peerTrial) perMessage() float64 { return t.cpu / float64(max(t.sent, 1)) * 1e6 }

// runEKuiper runs sp's feed through kuiperd from o.ekuiper against a fresh
// Mosquitto and measures kuiperd's CPU from the first publish to grace after the
// last, as runSpec measures edged's.
func runEKuiper(dir string, sp trialSpec, o *options) (*peerTrial, error) {
	mq, err := startMosquitto(mustTemp(dir, "mosquitto-"))
	if err != nil {
		return nil, err
	}
	defer mq.stop()
	base := mustTemp(dir, "ekuiper-")
	defer os.RemoveAll(base)
	ctx, cancel := context.WithTimeout(context.Background(), 3*sp.span+ekuiperStart+20*time.Second)
	defer cancel()

	k, err := startKuiperd(ctx, o.ekuiper, base, mq.url, sp.qos)
	if err != nil {
		return nil, err
	}
	defer k.stop()
	var results atomic.Int64
	sub, err := mqtt.Connect(ctx, mqtt.Options{
		URL: mq.url, ClientID: fmt.Sprintf("bench-ekuiper-results-%d", time.Now().UnixNano()), CleanSession: true,
		Subscriptions: []mqtt.Subscription{{Filter: ekuiperOut, QoS: byte(sp.qos)}},
		Handler:       func(*mqtt.Message) { results.Add(1) },
		Logger:        discardLogger(),
	})
	if err != nil {
		return nil, err
	}
	defer sub.Close(time.Second)
	pub, err := connectPublisher(ctx, mq.url)
	if err != nil {
		return nil, err
	}
	defer pub.Close(time.Second)
	if err := k.awaitSubscribed(ctx, pub); err != nil {
		return nil, err
	}

	t := &peerTrial{}
	pid := k.cmd.Process.Pid
	c0, err := procCPU(pid)
	if err != nil {
		return nil, err
	}
	r0 := results.Load()
	ended := make(chan error, 1)
	s, err := publishFeed(ctx, pub, byte(sp.qos), sp.rate, o.sensors, sp.span, sp.pace, o.feedTick, func() {
		time.AfterFunc(grace, func() {
			c1, err := procCPU(pid)
			t.cpu, t.results = c1-c0, results.Load()-r0
			ended <- err
		})
	})
	if err != nil {
		return nil, err
	}
	if err := <-ended; err != nil {
		return nil, err
	}
	t.sent, t.due, t.load = s.total, len(due(s)), loadAverage()
	switch {
	case s.failed > 0:
		return nil, fmt.Errorf("eKuiper trial: %d publishes failed", s.failed)
	case t.results == 0:
		k.stop() // its output is read once it has exited
		return nil, fmt.Errorf("eKuiper trial: no rows within the trial, %d windows due; kuiperd said: %s", t.due, k.log)
	}
	return t, nil
}

// kuiperd is a running eKuiper with its REST API.
type kuiperd struct {
	cmd    *exec.Cmd
	api    string
	exited chan struct{}
	log    *bytes.Buffer // its stdout and stderr: read only once exited is closed
}

// startKuiperd starts dist/kuiperd with a base dir of its own under base: a copy of
// dist/etc listening on free loopback ports, its MQTT source on broker at qos, and
// the bench's stream and rule created through its REST API.
func startKuiperd(ctx context.Context, dist, base, broker string, qos int) (*kuiperd, error) {
	for _, d := range []string{"data/schemas/protobuf", "data/schemas/custom", "log",
		"plugins/sources", "plugins/sinks", "plugins/functions", "plugins/portable", "plugins/wasm"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.CopyFS(filepath.Join(base, "etc"), os.DirFS(filepath.Join(dist, "etc"))); err != nil {
		return nil, fmt.Errorf("copying eKuiper's etc from %s (make ekuiper builds it): %w", dist, err)
	}
	rest, err := kuiperConfig(filepath.Join(base, "etc"), broker, qos)
	if err != nil {
		return nil, err
	}
	// Absolute: exec resolves a relative path from the command's Dir, base.
	bin, err := filepath.Abs(filepath.Join(dist, "kuiperd"))
	if err != nil {
		return nil, err
	}
	k := &kuiperd{api: "http://" + rest, exited: make(chan struct{}), log: &bytes.Buffer{}}
	k.cmd = exec.Command(bin)
	k.cmd.Dir = base
	k.cmd.Env = append(os.Environ(), "KuiperBaseKey="+base)
	k.cmd.Stdout, k.cmd.Stderr = k.log, k.log
	if err := k.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting kuiperd (make ekuiper builds it): %w", err)
	}
	go func() { _ = k.cmd.Wait(); close(k.exited) }()
	ok := false
	defer func() {
		if !ok {
			k.stop()
		}
	}()
	if err := k.await(ctx, "its REST API", func() (bool, error) {
		resp, err := http.Get(k.api + "/ping")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	}); err != nil {
		return nil, err
	}
	if err := k.post("/streams", map[string]any{"sql": ekuiperStream}); err != nil {
		return nil, err
	}
	rule := map[string]any{
		"id": "bench", "sql": ekuiperRule,
		"actions": []any{map[string]any{"mqtt": map[string]any{"server": broker, "topic": ekuiperOut, "qos": qos, "sendSingle": true}}},
		"options": map[string]any{"isEventTime": true, "lateTolerance": boundMS},
	}
	if err := k.post("/rules", rule); err != nil {
		return nil, err
	}
	ok = true
	return k, nil
}

// kuiperConfig points the kuiper.yaml and mqtt_source.yaml in etc at free
// loopback ports and at broker, and returns the REST API's address.
func kuiperConfig(etc, broker string, qos int) (string, error) {
	path := filepath.Join(etc, "kuiper.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	basic, _ := cfg["basic"].(map[string]any)
	if basic == nil {
		return "", fmt.Errorf("%s: no basic section", path)
	}
	ports := make([]int, 3)
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return "", err
		}
	}
	for k, v := range map[string]any{"ip": "127.0.0.1", "port": ports[0], "restIp": "127.0.0.1", "restPort": ports[1],
		"httpServerIp": "127.0.0.1", "httpServerPort": ports[2], "pprof": false} {
		basic[k] = v
	}
	if raw, err = yaml.Marshal(cfg); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return "", err
	}
	src := map[string]any{"default": map[string]any{"server": broker, "qos": qos, "protocolVersion": "3.1.1"}}
	if raw, err = yaml.Marshal(src); err != nil {
		return "", err
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1])), os.WriteFile(filepath.Join(etc, "mqtt_source.yaml"), raw, 0o644)
}

// awaitSubscribed publishes a reading from a sensor outside the feed until the
// rule's source has counted one: then it is subscribed and a trial may publish.
// Its event time is in the window before the feed's first, so that it holds back
// none of the feed's readings as late, and eKuiper, whose one watermark fires
// every window up to it, has one window to fire for it.
func (k *kuiperd) awaitSubscribed(ctx context.Context, pub *mqtt.Client) error {
	now := time.Now().UnixMilli()
	probe := fmt.Appendf(nil, `{"sensor":"probe","ts":%d,"temp":0,"hum":0}`, now-now%windowMS-windowMS)
	return k.await(ctx, "its rule's subscription", func() (bool, error) {
		pub.Publish("sensors/probe/data", 0, probe, nil)
		resp, err := http.Get(k.api + "/rules/bench/status")
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		var status map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&status); err != nil {
			return false, err
		}
		in, _ := status["source_s_0_records_in_total"].(float64)
		return in > 0, nil
	})
}

// await polls ready every 100 ms until it says yes, within ekuiperStart.
func (k *kuiperd) await(ctx context.Context, what string, ready func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, ekuiperStart)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := ready()
		switch {
		case err != nil:
			return fmt.Errorf("eKuiper %s: %w", what, err)
		case ok:
			return nil
		}
		select {
		case <-k.exited:
			return fmt.Errorf("kuiperd exited before %s was ready: %s", what, k.log)
		case <-ctx.Done():
			return fmt.Errorf("eKuiper %s not ready within %s", what, ekuiperStart)
		case <-tick.C:
		}
	}
}

func (k *kuiperd) post(path string, body any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	resp, err := http.Post(k.api+path, "application/json", bytes.NewReader(raw))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("eKuiper POST %s: %s: %s", path, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// stop ends kuiperd: SIGTERM, then SIGKILL after 5 s.
func (k *kuiperd) stop() {
	select {
	case <-k.exited:
	default:
		terminate(k.cmd.Process, k.exited, 5*time.Second)
	}
}
