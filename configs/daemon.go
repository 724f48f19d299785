package configs

import "time"

// Daemon is the daemon file plus the device files found in its devices_dir.
type Daemon struct {
	Path           string // the daemon file as given to Load
	DataDir        string // resolved against the daemon file's directory; callers may override it after loading
	Durability     string // "process", "power" or "memory"
	CommitInterval time.Duration
	CommitOnResult bool // a firing window asks for a commit at once rather than at the next interval
	DedupTTL       time.Duration
	DevicesDir     string // resolved against the daemon file's directory
	Log            Log
	HTTP           HTTP
	Metrics        Metrics
	Limits         Limits
	Broker         Broker
	Upstream       Upstream
	Fleet          Fleet
	Devices        []*Device // sorted by file name

	pos positions
}

// Log selects the slog handler.
type Log struct {
	Format string // "text" or "json"
	Level  string // "debug", "info", "warn" or "error"
}

// HTTP is the metrics and health endpoint.
type HTTP struct {
	Listen string // host:port; "" disables the endpoint
}

// Metrics shapes the Prometheus series.
type Metrics struct {
	// PerTopic exports stream series per concrete topic (per sensor) instead of per
	// stream definition: ten series per sensor, built at each scrape.
	PerTopic bool
}

// Limits bound what one device may hold in flight.
type Limits struct {
	MaxInflight int   // messages per device inside the pipeline before intake stops reading
	MaxPayload  int   // bytes; bigger payloads are rejected at intake
	MinFreeDisk int64 // bytes free on data_dir's disk below which state commits (and intake) pause; 0 = no check
	// MaxKeyBytes bounds a key taken from a payload field or a topic segment; a
	// longer one is rejected as undecodable. Keys are part of the store's keys,
	// which Badger bounds, and of result topics.
	MaxKeyBytes int
	// MaxKeysPerWindow bounds the live keys (window actors, passivated ones not
	// counted) of one window definition; readings of further keys go to the late
	// output with reason key_limit.
	MaxKeysPerWindow int
	// StreamRetention is how long a concrete topic that sends nothing is
	// remembered: its saved watermark state, its /status row and its share of the
	// stream series. Past it the topic is forgotten, and its next message starts a
	// new stream. 0 remembers every topic.
	StreamRetention time.Duration
	// Memory is the process's memory budget in bytes: Go's soft memory limit (unless
	// GOMEMLIMIT is set), the collector's pace (GOGC 50 up to 256MiB, rising to 100
	// at 512MiB, unless GOGC is set) and what Badger's memtables and caches are sized
	// from. 0 leaves the runtime alone and sizes Badger as for the default.
	Memory int64
}

// Broker is the local MQTT broker the sensors publish to.
type Broker struct {
	URL      string // tcp:// mqtt:// mqtts:// ssl:// tls:// ws:// wss:// or "embedded"
	Listen   string // host:port of the in-process broker; only with URL "embedded"
	ClientID string
	Username string
	Password string
	// PasswordFile holds the password (a secret kept out of the config file);
	// Load reads it into Password.
	PasswordFile string
	TLS          TLS
	KeepAlive    time.Duration
}

// Embedded reports whether edged runs the broker in-process.
func (b Broker) Embedded() bool { return b.URL == EmbeddedBroker }

// EmbeddedBroker is the broker URL that asks for the in-process broker.
const EmbeddedBroker = "embedded"

// Upstream is the cloud broker that receives late records (and results when a
// window asks for them), held in a disk outbox while the uplink is down: an MQTT
// broker, or NATS JetStream with a nats:// URL.
type Upstream struct {
	URL      string // "" disables upstream sync
	ClientID string
	Username string
	Password string
	// PasswordFile is as in Broker.
	PasswordFile string
	TLS          TLS
	TopicPrefix  string
	Batch        Batch
	MaxRate      float64 // records per second while draining the backlog
	Outbox       Outbox
	NATS         UpstreamNATS // only with a nats:// URL
}

// Enabled reports whether an upstream broker is configured.
func (u Upstream) Enabled() bool { return u.URL != "" }

// Batch bounds one upstream message.
type Batch struct {
	MaxRecords int
	MaxDelay   time.Duration
}

// Outbox bounds the on-disk backlog for the upstream broker.
type Outbox struct {
	MaxBytes int64
	WhenFull string // "drop_oldest", "drop_newest" or "block"
}
