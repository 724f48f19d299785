package configs

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/edged/edged/watermark"
	"github.com/edged/edged/windows"
)

// device builds a device file from the minimal one, replacing the lines of
// its stream (3 to 5) and window (7 to 11) entries where given, so that the
// line numbers in the expectations are easy to count.
func device(stream, window string) string {
	if stream == "" {
		stream = "  - name: s\n    topic: sensors/+/data\n    timestamp: {field: ts, unit: ms}\n"
	}
	if window == "" {
		window = "  - name: w\n    stream: s\n    type: tumbling\n    size: 5s\n    aggregates: [count]\n"
	}
	return "device: d\nstreams:\n" + stream + "windows:\n" + window
}

func errOf(f func() error) string {
	return f().Error()
}

func TestEachKindOfBadConfigIsReportedWithFileLineAndField(t *testing.T) {
	badStrategy := errOf(func() error { _, err := watermark.ParseStrategy("fancy"); return err })
	badIdleMode := errOf(func() error { _, err := watermark.ParseIdleMode("sleep"); return err })
	badAggregate := errOf(func() error { _, err := windows.ParseAggregates([]string{"median(temp)"}); return err })
	twice := errOf(func() error { _, err := windows.ParseAggregates([]string{"avg(temp)", "avg(temp)"}); return err })

	tests := []struct {
		name   string
		daemon string
		device string
		more   map[string]string // further files
		want   []string
	}{
		{
			name:   "an unknown field in the daemon file",
			daemon: "durabilty: power\n",
			want:   []string{"edged.yaml:1: durabilty: unknown field (valid: data_dir, durability, commit_interval, commit_on_result, dedup_ttl, devices_dir, log, http, metrics, limits, broker, upstream, fleet)"},
		},
		{
			name:   "an unknown field in a stream",
			device: device("  - name: s\n    topic: sensors/+/data\n    timestamp: {field: ts, unit: ms, zone: utc}\n", ""),
			want:   []string{"devices/d.yaml:5: streams[0].timestamp.zone: unknown field (valid: field, unit)"},
		},
		{
			name:   "a field set twice",
			daemon: "log:\n  level: info\n  level: debug\n",
			want:   []string{"edged.yaml:3: log.level: is set twice (first on line 2)"},
		},
		{
			name:   "a YAML syntax error",
			daemon: "broker:\n  url: tcp://a:1\n url: x\n",
			want:   []string{"edged.yaml:2: did not find expected key"},
		},
		{
			name:   "a syntax error in a device file",
			device: "device: d\nstreams:\n  - name: [s\n",
			more:   map[string]string{"devices/e.yaml": strings.Replace(device("", ""), "device: d", "device: e", 1)},
			want:   []string{"devices/d.yaml:2: did not find expected ',' or ']'"},
		},
		{
			name:   "more than one document in a file",
			daemon: "log: {level: info}\n---\nlog: {level: debug}\n",
			want:   []string{"edged.yaml:2: holds more than one YAML document; a config file has exactly one"},
		},
		{
			name:   "a mapping where a scalar belongs",
			device: device("", "  - name: w\n    stream: s\n    type: tumbling\n    size: {minutes: 1}\n    aggregates: [count]\n"),
			want:   []string{"devices/d.yaml:10: windows[0].size: expected a duration, got a mapping"},
		},
		{
			name:   "a scalar where a list belongs",
			device: "device: d\nstreams: sensors\n",
			want: []string{
				"devices/d.yaml:2: streams: expected a list, got \"sensors\"",
			},
		},
		{
			name:   "a string where an integer belongs",
			daemon: "limits: {max_inflight: many}\n",
			want:   []string{"edged.yaml:1: limits.max_inflight: expected an integer, got \"many\""},
		},
		{
			name:   "a boolean where a string belongs",
			daemon: "broker: {password: true}\n",
			want:   []string{"edged.yaml:1: broker.password: expected a string, got true (quote it to mean the text)"},
		},
		{
			name:   "a key bound over 16KiB",
			daemon: "limits: {max_key_bytes: 64KiB}\n",
			want:   []string{"edged.yaml:1: limits.max_key_bytes: must be at most 16384 (16KiB), got 65536"},
		},
		{
			name:   "a memory budget too small for Badger and the runtime",
			daemon: "limits: {memory: 16MiB}\n",
			want:   []string{"edged.yaml:1: limits.memory: must be from 32MiB to 1TiB (or 0 for no limit), got 16777216 bytes"},
		},
		{
			name:   "a memory budget in the wrong unit",
			daemon: "limits:\n  memory: 256000GiB\n",
			want:   []string{"edged.yaml:2: limits.memory: must be from 32MiB to 1TiB (or 0 for no limit), got 274877906944000 bytes"},
		},
		{
			name:   "a duration without a unit",
			daemon: "commit_interval: 50\n",
			want:   []string{"edged.yaml:1: commit_interval: 50 is not a duration (write it like 200ms, 5s or 1m)"},
		},
		{
			name:   "a size with an unknown unit",
			daemon: "limits: {max_payload: 64XB}\n",
			want:   []string{"edged.yaml:1: limits.max_payload: \"64XB\" is not a size (write bytes, or a number with B, KB, MB, GB, KiB, MiB or GiB)"},
		},
		{
			name:   "an unknown accumulation mode",
			device: device("", "  - name: w\n    stream: s\n    type: tumbling\n    size: 5s\n    accumulation: purging\n    aggregates: [count]\n"),
			want:   []string{`devices/d.yaml:11: windows[0].accumulation: "purging" is not one of: accumulating, discarding`},
		},
		{
			name:   "a negative early interval",
			device: device("", "  - name: w\n    stream: s\n    type: tumbling\n    size: 1h\n    early: -10s\n    aggregates: [count]\n"),
			want:   []string{"devices/d.yaml:11: windows[0].early: must not be negative, got -10s"},
		},
		{
			name:   "a negative duration",
			device: device("", "  - name: w\n    stream: s\n    type: tumbling\n    size: 5s\n    allowed_lateness: -1s\n    aggregates: [count]\n"),
			want:   []string{"devices/d.yaml:11: windows[0].allowed_lateness: must not be negative, got -1s"},
		},
		{
			name:   "a negative and a fractional watermark duration",
			device: device("  - name: s\n    topic: sensors/+/data\n    timestamp: {field: ts, unit: ms}\n    watermark: {max_future_skew: -1h, idle_timeout: 1500us}\n", ""),
			want: []string{
				"devices/d.yaml:6: streams[0].watermark.idle_timeout: must be a whole number of milliseconds, got 1.5ms",
				"devices/d.yaml:6: streams[0].watermark.max_future_skew: must not be negative, got -1h0m0s",
			},
		},
		{
			name:   "bad enum values",
			daemon: "durability: disk\nlog: {format: xml}\nupstream: {url: tcp://c:1883, outbox: {when_full: panic}}\n",
			want: []string{
				"edged.yaml:1: durability: \"disk\" is not one of: process, power, memory",
				"edged.yaml:2: log.format: \"xml\" is not one of: text, json",
				"edged.yaml:3: upstream.outbox.when_full: \"panic\" is not one of: drop_oldest, drop_newest, block",
			},
		},
		{
			name:   "a bad timestamp unit, strategy and idle mode",
			device: device("  - name: s\n    topic: sensors/+/data\n    timestamp: {field: ts, unit: sec}\n    watermark: {strategy: fancy, idle_mode: sleep}\n", ""),
			want: []string{
				"devices/d.yaml:5: streams[0].timestamp.unit: \"sec\" is not one of: s, ms, us, ns, rfc3339",
				"devices/d.yaml:6: streams[0].watermark.strategy: " + badStrategy,
				"devices/d.yaml:6: streams[0].watermark.idle_mode: " + badIdleMode,
			},
		},
		{
			name:   "a stream without a timestamp",
			device: device("  - name: s\n    topic: sensors/+/data\n", ""),
			want: []string{
				"devices/d.yaml:3: streams[0].timestamp.field: is required",
				"devices/d.yaml:3: streams[0].timestamp.unit: is required",
			},
		},
		{
			name:   "a window on a stream that does not exist",
			device: device("", "  - name: w\n    stream: boilers\n    type: tumbling\n    size: 5s\n    aggregates: [count]\n"),
			want:   []string{"devices/d.yaml:8: windows[0].stream: no stream named \"boilers\" in this device (streams: s)"},
		},
		{
			name:   "window types missing their size or gap",
			device: device("", "  - name: t\n    stream: s\n    type: tumbling\n    aggregates: [count]\n  - name: g\n    stream: s\n    type: session\n    size: 1m\n    aggregates: [count]\n"),
			want: []string{
				"devices/d.yaml:7: windows[0].size: is required for a tumbling window",
				"devices/d.yaml:11: windows[1].gap: is required for a session window",
				"devices/d.yaml:14: windows[1].size: is not used by a session window",
			},
		},
		{
			name:   "a bad window type",
			device: device("", "  - name: w\n    stream: s\n    type: hopping\n    size: 5s\n    aggregates: [count]\n"),
			want:   []string{"devices/d.yaml:9: windows[0].type: \"hopping\" is not one of: tumbling, sliding, session"},
		},
		{
			name:   "a slide larger than the size",
			device: device("", "  - name: w\n    stream: s\n    type: sliding\n    size: 10s\n    slide: 20s\n    aggregates: [count]\n"),
			want:   []string{"devices/d.yaml:11: windows[0].slide: must not be larger than size 10s, got 20s"},
		},
		{
			name:   "a sliding window that puts a record in millions of windows",
			device: device("", "  - name: w\n    stream: s\n    type: sliding\n    size: 1h\n    slide: 1ms\n    aggregates: [count]\n"),
			want: []string{"devices/d.yaml:11: windows[0].slide: size 1h0m0s / slide 1ms puts every record in 3600000 windows, " +
				"more than 1000: make the slide larger or the size smaller"},
		},
		{
			name:   "an offset not less than the size",
			device: device("", "  - name: w\n    stream: s\n    type: tumbling\n    size: 10s\n    offset: 10s\n    aggregates: [count]\n"),
			want:   []string{"devices/d.yaml:11: windows[0].offset: must be less than size 10s, got 10s"},
		},
		{
			name: "duplicate stream and window names",
			device: device("  - name: s\n    topic: a/+\n    timestamp: {field: ts, unit: ms}\n  - name: s\n    topic: b/+\n    timestamp: {field: ts, unit: ms}\n",
				"  - name: w\n    stream: s\n    type: tumbling\n    size: 5s\n    aggregates: [count]\n  - name: w\n    stream: s\n    type: session\n    gap: 5s\n    aggregates: [count]\n"),
			want: []string{
				"devices/d.yaml:6: streams[1].name: \"s\" is already the name of the stream on line 3",
				"devices/d.yaml:15: windows[1].name: \"w\" is already the name of the window on line 10",
			},
		},
		{
			name:   "a device id used by two files",
			device: device("", ""),
			more:   map[string]string{"devices/e.yaml": "\n" + device("", "")},
			want:   []string{"devices/e.yaml:2: device: \"d\" is already the id of devices/d.yaml:1; device ids must be unique"},
		},
		{
			name:   "bad aggregates",
			device: device("", "  - name: w\n    stream: s\n    type: tumbling\n    size: 5s\n    aggregates:\n      - count\n      - median(temp)\n  - name: v\n    stream: s\n    type: tumbling\n    size: 5s\n    aggregates: [avg(temp), avg(temp)]\n"),
			want: []string{
				"devices/d.yaml:13: windows[0].aggregates[1]: " + badAggregate,
				"devices/d.yaml:18: windows[1].aggregates: " + twice,
			},
		},
		{
			name:   "a window without aggregates",
			device: device("", "  - name: w\n    stream: s\n    type: tumbling\n    size: 5s\n"),
			want:   []string{"devices/d.yaml:7: windows[0].aggregates: a window needs at least one aggregate, such as count or avg(temp)"},
		},
		{
			name:   "bad QoS values",
			device: device("  - name: s\n    topic: sensors/+/data\n    qos: 3\n    timestamp: {field: ts, unit: ms}\n", "  - name: w\n    stream: s\n    type: tumbling\n    size: 5s\n    aggregates: [count]\n    output: {qos: one}\n"),
			want: []string{
				"devices/d.yaml:5: streams[0].qos: expected a QoS of 0, 1 or 2, got 3",
				"devices/d.yaml:13: windows[0].output.qos: expected a QoS of 0, 1 or 2, got \"one\"",
			},
		},
		{
			name:   "bad broker and upstream URLs",
			daemon: "broker: {url: \"http://gw:1883\"}\nupstream: {url: embedded}\n",
			want: []string{
				"edged.yaml:1: broker.url: \"http://gw:1883\" must start with tcp://, mqtt://, mqtts://, ssl://, tls://, ws:// or wss://, or be \"embedded\"",
				"edged.yaml:2: upstream.url: \"embedded\" must start with tcp://, mqtt://, mqtts://, ssl://, tls://, ws:// or wss:// (MQTT), or nats:// (NATS JetStream)",
			},
		},
		{
			name:   "a broker URL without a port",
			daemon: "broker: {url: \"tcp://gw\"}\n",
			want:   []string{"edged.yaml:1: broker.url: \"tcp://gw\" names no port"},
		},
		{
			name:   "a password in a bad broker URL stays out of the message",
			daemon: "broker: {url: \"tcp://edge:s3cret@gw\"}\nupstream: {url: \"https//edge:p/w@cloud:8883\"}\n",
			want: []string{
				"edged.yaml:1: broker.url: \"tcp://xxxxx@gw\" names no port",
				"edged.yaml:2: upstream.url: \"xxxxx@cloud:8883\" must start with tcp://, mqtt://, mqtts://, ssl://, tls://, ws:// or wss:// (MQTT), or nats:// (NATS JetStream)",
			},
		},
		{
			name:   "listen without the embedded broker",
			daemon: "broker:\n  url: tcp://gw:1883\n  listen: 0.0.0.0:1883\n",
			want:   []string{"edged.yaml:3: broker.listen: is only used with url: embedded"},
		},
		{
			name:   "unreadable TLS files",
			daemon: "broker:\n  url: ssl://gw:8883\n  tls: {ca: testdata/missing-ca.pem}\nupstream:\n  url: ssl://cloud:8883\n  tls:\n    cert: testdata/missing.crt\n",
			want: []string{
				"edged.yaml:3: broker.tls.ca: reading the CA file: open testdata/missing-ca.pem: no such file or directory",
				"edged.yaml:6: upstream.tls.key: a client certificate needs both cert and key",
			},
		},
		{
			name:   "TLS settings on a plain connection",
			daemon: "broker:\n  url: tcp://gw:1883\n  tls: {insecure_skip_verify: true}\n",
			want:   []string{"edged.yaml:3: broker.tls: is set but tcp:// does not use TLS; use mqtts://, ssl://, tls:// or wss://"},
		},
		{
			name:   "upstream results without an upstream",
			device: device("", "  - name: w\n    stream: s\n    type: tumbling\n    size: 5s\n    aggregates: [count]\n    upstream_results: true\n"),
			want:   []string{"devices/d.yaml:12: windows[0].upstream_results: needs an upstream broker, but the daemon file edged.yaml sets no upstream.url"},
		},
		{
			name:   "a key from both a field and a topic segment, and one past the topic",
			device: device("  - name: s\n    topic: a/+\n    timestamp: {field: ts, unit: ms}\n    key: {field: id, topic_segment: 1}\n  - name: t\n    topic: b/+\n    timestamp: {field: ts, unit: ms}\n    key: {topic_segment: 2}\n", ""),
			want: []string{
				"devices/d.yaml:6: streams[0].key: set either field or topic_segment, not both",
				"devices/d.yaml:10: streams[1].key.topic_segment: is 2 but the topic \"b/+\" has only levels 0 to 1",
			},
		},
		{
			name:   "bad topics",
			device: device("  - name: s\n    topic: sensors/#/data\n    timestamp: {field: ts, unit: ms}\n", "  - name: w\n    stream: s\n    type: tumbling\n    size: 5s\n    aggregates: [count]\n    output: {topic: \"out/{sensor}\"}\n    late: topic:late/+\n"),
			want: []string{
				"devices/d.yaml:4: streams[0].topic: \"sensors/#/data\" is not an MQTT filter: # must be the whole last level",
				"devices/d.yaml:12: windows[0].output.topic: unknown placeholder {sensor} in \"out/{sensor}\" (use {device}, {window}, {key})",
				"devices/d.yaml:13: windows[0].late: \"late/+\" is not a topic to publish to: it must not hold + or #",
			},
		},
		{
			name:   "a bad late destination",
			device: device("", "  - name: w\n    stream: s\n    type: tumbling\n    size: 5s\n    aggregates: [count]\n    late: cloud\n  - name: v\n    stream: s\n    type: tumbling\n    size: 5s\n    aggregates: [count]\n    late: \"topic:\"\n"),
			want: []string{
				"devices/d.yaml:12: windows[0].late: \"cloud\" is not one of: upstream, drop, topic:<mqtt topic>",
				"devices/d.yaml:18: windows[1].late: \"topic:\" names no topic",
			},
		},
		{
			name:   "fields of another strategy",
			device: device("  - name: s\n    topic: sensors/+/data\n    timestamp: {field: ts, unit: ms}\n    watermark: {strategy: monotonous, max_out_of_orderness: 2s, field: wm}\n", ""),
			want: []string{
				"devices/d.yaml:6: streams[0].watermark.max_out_of_orderness: is only used by the bounded strategy, not monotonous",
				"devices/d.yaml:6: streams[0].watermark.field: is only used by the punctuated strategy, not monotonous",
			},
		},
		{
			name:   "a device without id or streams",
			device: "windows: []\n",
			want: []string{
				"devices/d.yaml:1: device: is required",
				"devices/d.yaml:1: streams: a device needs at least one stream",
			},
		},
		{
			name:   "names that cannot go into topics",
			device: strings.Replace(device("", ""), "device: d", "device: boiler room", 1),
			want:   []string{"devices/d.yaml:1: device: \"boiler room\" may hold only letters, digits, '.', '_' and '-', and must start with a letter or digit"},
		},
		{
			name:   "bad addresses and limits",
			daemon: "http: {listen: \"9464\"}\nlimits: {max_inflight: 0}\nbroker: {url: embedded, listen: localhost}\n",
			want: []string{
				"edged.yaml:1: http.listen: \"9464\" is not a host:port address",
				"edged.yaml:2: limits.max_inflight: must be at least 1, got 0",
				"edged.yaml:3: broker.listen: \"localhost\" is not a host:port address",
			},
		},
		{
			name:   "TLS and a fractional keepalive on the embedded broker",
			daemon: "broker:\n  url: embedded\n  tls: {ca: ca.pem}\n  keepalive: 1500ms\n",
			want: []string{
				"edged.yaml:3: broker.tls: is not used by the embedded broker",
				"edged.yaml:4: broker.keepalive: must be a whole number of seconds (MQTT counts it in seconds), got 1.5s",
			},
		},
		{
			name:   "bad upstream numbers",
			daemon: "upstream:\n  url: wss://cloud/mqtt\n  topic_prefix: edged/#\n  batch: {max_records: 0, max_delay: -1s}\n  max_rate: fast\n  outbox: {max_bytes: -1, when_full: block}\n",
			want: []string{
				"edged.yaml:3: upstream.topic_prefix: \"edged/#\" is not a topic to publish to: it must not hold + or #",
				"edged.yaml:4: upstream.batch.max_records: must be at least 1, got 0",
				"edged.yaml:4: upstream.batch.max_delay: must not be negative, got -1s",
				"edged.yaml:5: upstream.max_rate: expected a number, got \"fast\"",
				"edged.yaml:6: upstream.outbox.max_bytes: must be positive, got -1",
			},
		},
		{
			name:   "a word where a boolean belongs",
			daemon: "broker:\n  url: ssl://gw:8883\n  tls: {insecure_skip_verify: yes}\n",
			want:   []string{"edged.yaml:3: broker.tls.insecure_skip_verify: expected true or false, got \"yes\""},
		},
		{
			name:   "bad field paths",
			device: device("  - name: s\n    topic: sensors/+/data\n    timestamp: {field: meta..ts, unit: ms}\n    key: {field: id.}\n", ""),
			want: []string{
				"devices/d.yaml:5: streams[0].timestamp.field: \"meta..ts\" is not a dotted field path like ts or meta.ts",
				"devices/d.yaml:6: streams[0].key.field: \"id.\" is not a dotted field path like ts or meta.ts",
			},
		},
		{
			name:   "a sliding offset not less than the slide and an unbalanced output topic",
			device: device("", "  - name: w\n    stream: s\n    type: sliding\n    size: 1m\n    slide: 10s\n    offset: 10s\n    aggregates: [count]\n    output: {topic: \"out/{key\"}\n"),
			want: []string{
				"devices/d.yaml:12: windows[0].offset: must be less than slide 10s, got 10s",
				"devices/d.yaml:14: windows[0].output.topic: \"out/{key\" has an unbalanced { or }",
			},
		},
		{
			name:   "a devices_dir without device files",
			daemon: "devices_dir: nothing-here\n",
			more:   map[string]string{"nothing-here/README": "not yaml"},
			want:   []string{"edged.yaml:1: devices_dir: nothing-here holds no device files (*.yaml, *.yml)"},
		},
		{
			name:   "a devices_dir that does not exist",
			daemon: "devices_dir: nowhere\n",
			want:   []string{"edged.yaml:1: devices_dir: cannot list the device files in nowhere: file does not exist"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"edged.yaml": tt.daemon}
			if tt.device != "" {
				files["devices/d.yaml"] = tt.device
			} else if !strings.Contains(tt.daemon, "devices_dir") {
				files["devices/d.yaml"] = device("", "")
			}
			for name, body := range tt.more {
				files[name] = body
			}
			_, err := LoadFS(mapFS(files), "edged.yaml")
			want := strings.Join(tt.want, "\n")
			if err == nil {
				t.Fatalf("loaded without error, want:\n%s", want)
			}
			if got := err.Error(); got != want {
				t.Errorf("errors:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestEveryProblemIsReportedAtOnce(t *testing.T) {
	daemon := "durability: disk\ncommit_interval: -5ms\nbroker: {url: ftp://gw:21}\n"
	bad := `device: d
streams:
  - name: s
    topic: sensors/+/data
    qos: 7
    timestamp: {field: ts, unit: minutes}
windows:
  - name: w
    stream: nope
    type: sliding
    size: 1m
    aggregates: [count, mode(temp)]
`
	_, err := LoadFS(mapFS(map[string]string{
		"edged.yaml":     daemon,
		"devices/a.yaml": bad,
		"devices/b.yaml": "device: e\nstreams: [{name: s, topic: x, timestamp: {field: ts, unit: ms}, extra: 1}]\n",
	}), "edged.yaml")
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error %v is not Errors", err)
	}
	var got []string
	for _, e := range errs {
		got = append(got, fmt.Sprintf("%s:%d %s", e.File, e.Line, e.Field))
	}
	want := []string{
		"devices/a.yaml:5 streams[0].qos",
		"devices/a.yaml:6 streams[0].timestamp.unit",
		"devices/a.yaml:8 windows[0].slide",
		"devices/a.yaml:9 windows[0].stream",
		"devices/a.yaml:12 windows[0].aggregates[1]",
		"devices/b.yaml:2 streams[0].extra",
		"edged.yaml:1 durability",
		"edged.yaml:2 commit_interval",
		"edged.yaml:3 broker.url",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s\nfull errors:\n%v", strings.Join(got, "\n"), strings.Join(want, "\n"), err)
	}
}

func TestErrorsPrintOneProblemPerLine(t *testing.T) {
	tests := []struct {
		name string
		err  Error
		want string
	}{
		{"a field on a line", Error{File: "d.yaml", Line: 4, Field: "windows[0].size", Reason: "is required"}, "d.yaml:4: windows[0].size: is required"},
		{"a syntax error has no field", Error{File: "d.yaml", Line: 2, Reason: "did not find expected key"}, "d.yaml:2: did not find expected key"},
		{"an unreadable file has no line", Error{File: "d.yaml", Reason: "cannot read the file: permission denied"}, "d.yaml: cannot read the file: permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
	if got := (Errors{{File: "a", Line: 1, Reason: "x"}, {File: "b", Line: 2, Reason: "y"}}).Error(); got != "a:1: x\nb:2: y" {
		t.Errorf("Errors.Error() = %q", got)
	}
}

func TestAMissingFileIsReportedByName(t *testing.T) {
	_, err := Load("testdata/no-such-daemon.yaml")
	if err == nil || err.Error() != "testdata/no-such-daemon.yaml: cannot read the file: no such file or directory" {
		t.Errorf("Load of a missing file: %v", err)
	}
	_, err = LoadDevice("testdata/no-such-device.yaml")
	if err == nil || err.Error() != "testdata/no-such-device.yaml: cannot read the file: no such file or directory" {
		t.Errorf("LoadDevice of a missing file: %v", err)
	}
}

func TestAnchorsAndAliasesAreFollowed(t *testing.T) {
	dev := `device: d
x-watermark: &wm {strategy: bounded, max_out_of_orderness: 1s}
`
	_, err := LoadFS(mapFS(map[string]string{"edged.yaml": "", "devices/d.yaml": dev}), "edged.yaml")
	if err == nil || !strings.Contains(err.Error(), "devices/d.yaml:2: x-watermark: unknown field") {
		t.Errorf("an extra top-level key for anchors: %v", err)
	}
	dev = `device: d
streams:
  - name: a
    topic: a/+
    timestamp: &ts {field: ts, unit: ms}
    watermark: &wm {strategy: bounded, max_out_of_orderness: 1s}
  - name: b
    topic: b/+
    timestamp: *ts
    watermark: *wm
`
	d, err := ParseDevice("d.yaml", []byte(dev))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Streams[1].WatermarkConfig().MaxOutOfOrderness; got != 1000 {
		t.Errorf("aliased watermark bound = %d ms, want 1000", got)
	}
}

func TestADeviceBuiltInGoIsValidatedToo(t *testing.T) {
	d := &Device{Path: "built-in", ID: "d", Streams: []*Stream{{
		Name: "s", Topic: "a/+", Format: "json", QoS: 5, Timestamp: Timestamp{Field: "ts", Unit: "ms"},
		Key: Key{TopicSegment: -1}, Watermark: Watermark{Strategy: "bounded", Interval: time.Second, IdleMode: "hold"},
	}}}
	want := "built-in: streams[0].qos: expected a QoS of 0, 1 or 2, got 5"
	if err := d.Validate(); err == nil || err.Error() != want {
		t.Errorf("Validate() = %v, want %s", err, want)
	}
	d.Streams[0].QoS = 2
	if err := d.Validate(); err != nil {
		t.Errorf("Validate() of a fixed device: %v", err)
	}
	if got := d.Streams[0].WatermarkConfig().IdleMode; got != watermark.Hold {
		t.Errorf("idle mode = %v, want hold", got)
	}
}
