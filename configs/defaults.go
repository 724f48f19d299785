package configs

import (
	"os"
	"time"
)

// Defaults. These are the values a field takes when a file leaves it out; the
// config reference (docs/configuration.md) cites this list. A field written in a file, even
// as 0 or "", keeps that value and is validated as written: 0 and "" mean
// something for some fields (off, QoS 0) and are errors for the others.
//
// Daemon file:
//
//	data_dir                 data (next to the daemon file)
//	durability               process
//	commit_interval          100ms
//	commit_on_result         true: a firing window's result is committed at once
//	dedup_ttl                1h
//	devices_dir              devices (next to the daemon file)
//	log.format, log.level    text, info
//	http.listen              127.0.0.1:9464; "" disables the endpoint
//	metrics.per_topic        false: stream series per definition
//	limits.max_inflight      10000 messages per device
//	limits.max_payload       64KiB
//	limits.min_free_disk     64MiB; 0 = no check
//	limits.max_key_bytes     256 (at most 16KiB)
//	limits.max_keys_per_window 10000 live keys per window definition
//	limits.stream_retention  24h; 0 = topics are never forgotten
//	limits.memory            256MiB (from 32MiB to 1TiB); 0 = no limit. Up to
//	                         256MiB it also sets GOGC 50, rising to 100 at 512MiB
//	broker.url               tcp://127.0.0.1:1883
//	broker.listen            127.0.0.1:1883, only with url: embedded
//	broker.client_id         edged-<hostname>
//	broker.keepalive         30s
//	upstream.url             "" (upstream sync off)
//	upstream.client_id       edged-<hostname>-upstream
//	upstream.topic_prefix    edged/<hostname>
//	upstream.batch           max_records 100; max_delay 1s (0 = send at once)
//	upstream.max_rate        500 records/s
//	upstream.outbox          max_bytes 64MiB, when_full drop_oldest
//	upstream.jetstream       stream EDGED, storage file, duplicate_window 1h (nats:// only)
//	fleet.kv.url             "" (no fleet bucket)
//	fleet.kv                 bucket edged-fleet, prefix edged, host <hostname>
//
// Device file, per stream:
//
//	format                   json
//	qos                      1
//	timestamp                no default: field and unit are required, never guessed
//	key                      the concrete topic when neither field nor topic_segment is set
//	watermark.strategy       bounded, max_out_of_orderness 0: set it to the disorder you expect
//	watermark.field          watermark (punctuated only)
//	watermark.interval       200ms
//	watermark.idle_timeout   30s; 0 = a stream never goes idle
//	watermark.idle_mode      advance
//	watermark.max_future_skew 1h; 0 = guard off
//
// Per window:
//
//	offset, allowed_lateness 0
//	accumulation             accumulating
//	early                    0 = no early firings
//	passivate_after          the window's size (a session window's gap)
//	output.topic             edged/{device}/{window}/{key}; "" = not published locally
//	output.qos               1
//	late                     upstream
//	upstream_results         false
const (
	DefaultDataDir          = "data"
	DefaultDurability       = "process"
	DefaultCommitInterval   = 100 * time.Millisecond
	DefaultDedupTTL         = time.Hour
	DefaultDevicesDir       = "devices"
	DefaultLogFormat        = "text"
	DefaultLogLevel         = "info"
	DefaultHTTPListen       = "127.0.0.1:9464"
	DefaultMaxInflight      = 10000
	DefaultMaxPayload       = 64 << 10
	DefaultMinFreeDisk      = 64 << 20
	DefaultMaxKeyBytes      = 256
	DefaultMaxKeysPerWindow = 10000
	// DefaultStreamRetention forgets a topic a day after its last message: tags and
	// trips that come and go cost a gateway a day of them, not every one it saw.
	DefaultStreamRetention = 24 * time.Hour
	// DefaultMemory fits a small gateway (256 MB-1 GB shared with other services).
	DefaultMemory = 256 << 20
	// MinMemory fits Badger's two memtables and index cache, the runtime, and a few
	// hundred keys; MaxMemory catches a unit typed wrong.
	MinMemory = 32 << 20
	MaxMemory = 1 << 40
	// MaxKeyBytesLimit keeps every store key well under Badger's 65,000 bytes (a key
	// is in a store key once, NUL bytes doubled) and an escaped key (3 bytes per byte
	// at worst) inside MQTT's 65,535-byte topics.
	MaxKeyBytesLimit       = 16 << 10
	DefaultBrokerURL       = "tcp://127.0.0.1:1883"
	DefaultEmbeddedListen  = "127.0.0.1:1883"
	DefaultKeepAlive       = 30 * time.Second
	DefaultBatchRecords    = 100
	DefaultBatchDelay      = time.Second
	DefaultMaxRate         = 500
	DefaultOutboxBytes     = 64 << 20
	DefaultWhenFull        = "drop_oldest"
	DefaultFormat          = "json"
	DefaultQoS             = 1
	DefaultStrategy        = "bounded"
	DefaultWatermarkField  = "watermark"
	DefaultInterval        = 200 * time.Millisecond
	DefaultIdleTimeout     = 30 * time.Second
	DefaultIdleMode        = "advance"
	DefaultMaxFutureSkew   = time.Hour
	DefaultOutputTopic     = "edged/{device}/{window}/{key}"
	DefaultLate            = LateUpstream
	DefaultAccumulation    = Accumulating
	defaultClientIDPrefix  = "edged-"
	defaultUpstreamSuffix  = "-upstream"
	defaultTopicPrefixRoot = "edged/"
)

// hostname names this gateway in default client ids and topic prefixes.
func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return h
}

// applyDefaults fills what the daemon file left out. It and
// applyDeviceDefaults are the only places defaults are applied; each runs
// right after its file is decoded, and validation runs after both.
func applyDefaults(d *Daemon) {
	p := d.pos
	or(p, "data_dir", &d.DataDir, DefaultDataDir)
	or(p, "durability", &d.Durability, DefaultDurability)
	or(p, "commit_interval", &d.CommitInterval, DefaultCommitInterval)
	or(p, "commit_on_result", &d.CommitOnResult, true)
	or(p, "dedup_ttl", &d.DedupTTL, DefaultDedupTTL)
	or(p, "devices_dir", &d.DevicesDir, DefaultDevicesDir)
	or(p, "log.format", &d.Log.Format, DefaultLogFormat)
	or(p, "log.level", &d.Log.Level, DefaultLogLevel)
	or(p, "http.listen", &d.HTTP.Listen, DefaultHTTPListen)
	or(p, "limits.max_inflight", &d.Limits.MaxInflight, DefaultMaxInflight)
	or(p, "limits.max_payload", &d.Limits.MaxPayload, DefaultMaxPayload)
	or(p, "limits.min_free_disk", &d.Limits.MinFreeDisk, DefaultMinFreeDisk)
	or(p, "limits.max_key_bytes", &d.Limits.MaxKeyBytes, DefaultMaxKeyBytes)
	or(p, "limits.max_keys_per_window", &d.Limits.MaxKeysPerWindow, DefaultMaxKeysPerWindow)
	or(p, "limits.stream_retention", &d.Limits.StreamRetention, DefaultStreamRetention)
	or(p, "limits.memory", &d.Limits.Memory, DefaultMemory)

	host := hostname()
	or(p, "broker.url", &d.Broker.URL, DefaultBrokerURL)
	if d.Broker.Embedded() {
		or(p, "broker.listen", &d.Broker.Listen, DefaultEmbeddedListen)
	}
	or(p, "broker.client_id", &d.Broker.ClientID, defaultClientIDPrefix+host)
	or(p, "broker.keepalive", &d.Broker.KeepAlive, DefaultKeepAlive)

	u := &d.Upstream
	or(p, "upstream.client_id", &u.ClientID, defaultClientIDPrefix+host+defaultUpstreamSuffix)
	or(p, "upstream.topic_prefix", &u.TopicPrefix, defaultTopicPrefixRoot+host)
	or(p, "upstream.batch.max_records", &u.Batch.MaxRecords, DefaultBatchRecords)
	or(p, "upstream.batch.max_delay", &u.Batch.MaxDelay, DefaultBatchDelay)
	or(p, "upstream.max_rate", &u.MaxRate, DefaultMaxRate)
	or(p, "upstream.outbox.max_bytes", &u.Outbox.MaxBytes, DefaultOutboxBytes)
	or(p, "upstream.outbox.when_full", &u.Outbox.WhenFull, DefaultWhenFull)
	applyNATSDefaults(p, &u.NATS)
	applyFleetDefaults(p, &d.Fleet.KV)
}

// applyDeviceDefaults fills what a device file left out.
func applyDeviceDefaults(dev *Device) {
	p := dev.pos
	for i, s := range dev.Streams {
		sp := index("streams", i)
		or(p, join(sp, "format"), &s.Format, DefaultFormat)
		or(p, join(sp, "qos"), &s.QoS, DefaultQoS)
		wm := &s.Watermark
		or(p, join(sp, "watermark.strategy"), &wm.Strategy, DefaultStrategy)
		if wm.Strategy == "punctuated" {
			or(p, join(sp, "watermark.field"), &wm.Field, DefaultWatermarkField)
		}
		or(p, join(sp, "watermark.interval"), &wm.Interval, DefaultInterval)
		or(p, join(sp, "watermark.idle_timeout"), &wm.IdleTimeout, DefaultIdleTimeout)
		or(p, join(sp, "watermark.idle_mode"), &wm.IdleMode, DefaultIdleMode)
		or(p, join(sp, "watermark.max_future_skew"), &wm.MaxFutureSkew, DefaultMaxFutureSkew)
	}
	for i, w := range dev.Windows {
		wp := index("windows", i)
		or(p, join(wp, "output.topic"), &w.Output.Topic, DefaultOutputTopic)
		or(p, join(wp, "output.qos"), &w.Output.QoS, DefaultQoS)
		or(p, join(wp, "late"), &w.Late, DefaultLate)
		or(p, join(wp, "accumulation"), &w.Accumulation, DefaultAccumulation)
		// A key that reports once a window keeps its actor between readings; one
		// quiet for longer costs only its next reading a start.
		or(p, join(wp, "passivate_after"), &w.PassivateAfter, max(w.Length(), 0))
	}
}

// or sets *dst to def unless the file wrote the field at path: a value
// written in a file, even 0 or "", is validated as written.
func or[T any](pos positions, path string, dst *T, def T) {
	if !pos.has(path) {
		*dst = def
	}
}
