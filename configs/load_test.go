package configs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/edged/edged/watermark"
)

// mapFS builds an in-memory config tree from file names and contents.
func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(body)}
	}
	return fsys
}

const minimalDevice = `device: d
streams:
  - name: s
    topic: sensors/+/data
    timestamp: {field: ts, unit: ms}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 5s
    aggregates: [count]
`

func TestEveryExampleAndTheDemoValidate(t *testing.T) {
	for _, path := range []string{"examples/edged.yaml", "demo/edged.yaml"} {
		t.Run(path, func(t *testing.T) {
			d, err := Load(path)
			if err != nil {
				t.Fatalf("Load(%s):\n%v", path, err)
			}
			if len(d.Devices) == 0 {
				t.Fatalf("Load(%s) found no devices in %s", path, d.DevicesDir)
			}
		})
	}
	t.Run("the example upstream section, once enabled", func(t *testing.T) {
		d, err := Load("examples/edged.yaml")
		if err != nil {
			t.Fatal(err)
		}
		d.Upstream.URL = "ssl://cloud.example:8883"
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the embedded demo", func(t *testing.T) {
		d, err := Embedded("/tmp/edged-demo")
		if err != nil {
			t.Fatal(err)
		}
		if d.DataDir != "/tmp/edged-demo" || !d.Broker.Embedded() || d.Broker.Listen != "127.0.0.1:18830" {
			t.Fatalf("embedded demo: data_dir %q, broker %+v", d.DataDir, d.Broker)
		}
	})
	t.Run("every device file on disk loads alone", func(t *testing.T) {
		files, _ := filepath.Glob("*/devices/*.yaml")
		if len(files) < 3 {
			t.Fatalf("found only %v", files)
		}
		for _, f := range files {
			if _, err := LoadDevice(f); err != nil {
				t.Errorf("LoadDevice(%s):\n%v", f, err)
			}
		}
	})
}

func TestTheExamplesSayWhatTheyMean(t *testing.T) {
	d, err := Load("examples/edged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("examples", "data"); d.DataDir != want {
		t.Errorf("DataDir = %q, want %q (relative to the daemon file)", d.DataDir, want)
	}
	if got := []string{d.Devices[0].ID, d.Devices[1].ID}; !slices.Equal(got, []string{"boiler-room", "env-sensors"}) {
		t.Errorf("devices = %v, want them in file name order", got)
	}
	boilers := d.Devices[0].Stream("boilers")
	if boilers.Key.Field != "boiler_id" || boilers.Key.TopicSegment != -1 {
		t.Errorf("boilers key = %+v, want the payload field boiler_id", boilers.Key)
	}
	if got := boilers.Values(); !slices.Equal(got, []string{"temp"}) {
		t.Errorf("boilers values = %v, want [temp]", got)
	}
	if got, want := boilers.WatermarkConfig(), (watermark.Config{Strategy: watermark.Bounded, MaxOutOfOrderness: 2000, IdleTimeout: 30000, MaxFutureSkew: 3600000}); got != want {
		t.Errorf("boilers watermark = %+v, want %+v", got, want)
	}
	env := d.Devices[1]
	if got := env.Stream("env").Values(); !slices.Equal(got, []string{"temp", "hum"}) {
		t.Errorf("env values = %v, want [temp hum] in first-seen order", got)
	}
	if got := len(env.WindowsOn("env")); got != 2 {
		t.Errorf("windows on env = %d, want 2", got)
	}
	op := env.Windows[1].Operator()
	if !op.Assigner.Merging() || op.Aggregates == nil || !slices.Equal(op.Aggregates.Names(), []string{"count", "min_temp", "max_temp"}) {
		t.Errorf("session operator = %+v", op)
	}
	if got := env.Windows[0].Operator().AllowedLateness; got != 10000 {
		t.Errorf("allowed lateness = %d ms, want 10000", got)
	}
}

func TestDefaultsFillWhatTheFilesLeaveOut(t *testing.T) {
	d, err := LoadFS(mapFS(map[string]string{"edged.yaml": "", "devices/d.yaml": minimalDevice}), "edged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	host := hostname()
	want := Daemon{
		Path: "edged.yaml", DataDir: "data", Durability: "process", CommitInterval: 100 * time.Millisecond, CommitOnResult: true,
		DedupTTL: time.Hour, DevicesDir: "devices",
		Log: Log{Format: "text", Level: "info"}, HTTP: HTTP{Listen: "127.0.0.1:9464"},
		Limits: Limits{MaxInflight: 10000, MaxPayload: 65536, MinFreeDisk: 64 << 20, MaxKeyBytes: 256, MaxKeysPerWindow: 10000, StreamRetention: 24 * time.Hour, Memory: 256 << 20},
		Broker: Broker{URL: "tcp://127.0.0.1:1883", ClientID: "edged-" + host, KeepAlive: 30 * time.Second},
		Upstream: Upstream{ClientID: "edged-" + host + "-upstream", TopicPrefix: "edged/" + host,
			Batch: Batch{MaxRecords: 100, MaxDelay: time.Second}, MaxRate: 500,
			Outbox: Outbox{MaxBytes: 64 << 20, WhenFull: "drop_oldest"},
			NATS:   UpstreamNATS{JetStream: JetStream{Stream: "EDGED", Storage: "file", DuplicateWindow: time.Hour}}},
		Fleet: Fleet{KV: FleetKV{Bucket: "edged-fleet", Prefix: "edged", Host: host}},
	}
	got := *d
	got.Devices, got.pos = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("daemon defaults:\n got %+v\nwant %+v", got, want)
	}
	if d.Upstream.Enabled() {
		t.Error("upstream enabled without a url")
	}

	s, w := d.Devices[0].Streams[0], d.Devices[0].Windows[0]
	wantStream := Stream{Name: "s", Topic: "sensors/+/data", Format: "json", QoS: 1,
		Timestamp: Timestamp{Field: "ts", Unit: "ms"}, Key: Key{TopicSegment: -1},
		Watermark: Watermark{Strategy: "bounded", Interval: 200 * time.Millisecond, IdleTimeout: 30 * time.Second,
			IdleMode: "advance", MaxFutureSkew: time.Hour},
		Line: 3}
	gotStream := *s
	gotStream.wm, gotStream.values = watermark.Config{}, nil
	if !reflect.DeepEqual(gotStream, wantStream) {
		t.Errorf("stream defaults:\n got %+v\nwant %+v", gotStream, wantStream)
	}
	if w.Output != (Output{Topic: "edged/{device}/{window}/{key}", QoS: 1}) || w.Late != "upstream" || w.UpstreamResults || w.Accumulation != "accumulating" {
		t.Errorf("window defaults: output %+v, late %q, upstream_results %v, accumulation %q", w.Output, w.Late, w.UpstreamResults, w.Accumulation)
	}
	if op := w.Operator(); op.Discarding || op.Early != 0 || w.Early != 0 {
		t.Errorf("a window that sets no accumulation or early discards (%v) or fires early (%v)", op.Discarding, op.Early)
	}
	if _, ok := w.LateTopic(); ok {
		t.Error("LateTopic reports a topic for late: upstream")
	}
}

func TestExplicitZeroesKeepTheirMeaning(t *testing.T) {
	daemon := "http: {listen: \"\"}\nupstream: {url: tcp://cloud:1883, batch: {max_delay: 0s}}\n"
	device := `device: d
streams:
  - name: s
    topic: sensors/+/data
    qos: 0
    timestamp: {field: ts, unit: ms}
    watermark: {strategy: punctuated, idle_timeout: 0s, max_future_skew: 0s}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 5s
    aggregates: [count]
    output: {topic: "", qos: 0}
    late: topic:edged/late
`
	d, err := LoadFS(mapFS(map[string]string{"edged.yaml": daemon, "devices/d.yaml": device}), "edged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if d.HTTP.Listen != "" || d.Upstream.Batch.MaxDelay != 0 {
		t.Errorf("http.listen %q, upstream.batch.max_delay %v: want both off", d.HTTP.Listen, d.Upstream.Batch.MaxDelay)
	}
	s, w := d.Devices[0].Streams[0], d.Devices[0].Windows[0]
	if s.QoS != 0 || s.Watermark.IdleTimeout != 0 || s.Watermark.MaxFutureSkew != 0 || s.Watermark.Field != "watermark" {
		t.Errorf("stream: qos %d, watermark %+v", s.QoS, s.Watermark)
	}
	if w.Output != (Output{}) {
		t.Errorf("output = %+v, want no local publishing", w.Output)
	}
	if topic, ok := w.LateTopic(); !ok || topic != "edged/late" {
		t.Errorf("LateTopic() = %q, %v", topic, ok)
	}
}

func TestRelativePathsAreTakenFromTheDaemonFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("conf/edged.yaml", "data_dir: state\ndevices_dir: ../devs\n")
	write("devs/b.yml", minimalDevice)
	write("devs/notes.txt", "not a device")
	d, err := Load(filepath.Join(dir, "conf", "edged.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "conf", "state"); d.DataDir != want {
		t.Errorf("DataDir = %q, want %q", d.DataDir, want)
	}
	if len(d.Devices) != 1 || d.Devices[0].Path != filepath.Join(dir, "devs", "b.yml") {
		t.Errorf("devices = %v, want only devs/b.yml", d.Devices)
	}
}

// A device file passed as --config is the usual first mistake: one error that says
// so, not a list of unknown fields.
func TestADeviceFileGivenAsTheDaemonFileGetsAHint(t *testing.T) {
	_, err := LoadFS(mapFS(map[string]string{"dev.yaml": minimalDevice}), "dev.yaml")
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != 1 {
		t.Fatalf("want exactly one error, got %v", err)
	}
	e := errs[0]
	if e.Line != 1 || e.Field != "device" || !strings.Contains(e.Reason, "device file") {
		t.Errorf("got %s, want line 1, field device, a hint that this is a device file", e.Error())
	}
}
