package configs

import (
	"net/url"
	"slices"
	"time"

	"github.com/edged/edged/internal/redact"
)

var (
	brokerSchemes = []string{"tcp", "mqtt", "mqtts", "ssl", "tls", "ws", "wss"}
	tlsSchemes    = []string{"mqtts", "ssl", "tls", "wss"}
)

// Validate checks the daemon file and every device, collecting all problems.
// It returns Errors, or nil. Validate applies no defaults; a config built in
// Go rather than loaded gets its lines reported as 0.
func (d *Daemon) Validate() error {
	var errs Errors
	d.validate(&errs)
	return errs.err()
}

func (d *Daemon) validate(errs *Errors) {
	r := newReport(d.Path, d.pos, errs)
	r.required("data_dir", d.DataDir)
	r.oneOf("durability", d.Durability, "process", "power", "memory")
	r.positive("commit_interval", d.CommitInterval)
	r.positive("dedup_ttl", d.DedupTTL)
	r.required("devices_dir", d.DevicesDir)
	r.oneOf("log.format", d.Log.Format, "text", "json")
	r.oneOf("log.level", d.Log.Level, "debug", "info", "warn", "error")
	if d.HTTP.Listen != "" {
		r.hostPort("http.listen", d.HTTP.Listen)
	}
	r.atLeast("limits.max_inflight", d.Limits.MaxInflight, 1)
	r.atLeast("limits.max_payload", d.Limits.MaxPayload, 1)
	if d.Limits.MinFreeDisk < 0 {
		r.at("limits.min_free_disk", "must be at least 0 (0 turns the check off), got %d", d.Limits.MinFreeDisk)
	}
	if r.atLeast("limits.max_key_bytes", d.Limits.MaxKeyBytes, 1) && d.Limits.MaxKeyBytes > MaxKeyBytesLimit {
		r.at("limits.max_key_bytes", "must be at most %d (16KiB), got %d", MaxKeyBytesLimit, d.Limits.MaxKeyBytes)
	}
	r.atLeast("limits.max_keys_per_window", d.Limits.MaxKeysPerWindow, 1)
	r.eventTime("limits.stream_retention", d.Limits.StreamRetention)
	if m := d.Limits.Memory; m != 0 && (m < MinMemory || m > MaxMemory) {
		r.at("limits.memory", "must be from 32MiB to 1TiB (or 0 for no limit), got %d bytes", m)
	}
	d.validateBroker(r)
	if d.Upstream.Enabled() {
		d.validateUpstream(r)
	}
	d.validateFleet(r)

	owners := map[string]*Device{}
	for _, dev := range d.Devices {
		dr := dev.validate(errs)
		if dev.unparsed {
			continue
		}
		if first, dup := owners[dev.ID]; dup && dev.ID != "" {
			dr.at("device", "%q is already the id of %s:%d; device ids must be unique", dev.ID, first.Path, first.Line)
		} else {
			owners[dev.ID] = dev
		}
		if !d.Upstream.Enabled() {
			for i, w := range dev.Windows {
				if w.UpstreamResults {
					dr.at(join(index("windows", i), "upstream_results"), "needs an upstream broker, but the daemon file %s sets no upstream.url", d.Path)
				}
			}
		}
	}
}

func (d *Daemon) validateBroker(r *report) {
	b := d.Broker
	if b.Embedded() {
		r.hostPort("broker.listen", b.Listen)
		if b.TLS.set() {
			r.at("broker.tls", "is not used by the embedded broker")
		}
	} else {
		r.brokerURL("broker.url", b.URL, true)
		if b.Listen != "" {
			r.at("broker.listen", "is only used with url: embedded")
		}
		r.tls("broker", b.URL, b.TLS)
	}
	r.required("broker.client_id", b.ClientID)
	switch {
	case b.KeepAlive < time.Second:
		r.at("broker.keepalive", "must be at least 1s, got %v", b.KeepAlive)
	case b.KeepAlive%time.Second != 0:
		r.at("broker.keepalive", "must be a whole number of seconds (MQTT counts it in seconds), got %v", b.KeepAlive)
	}
}

func (d *Daemon) validateUpstream(r *report) {
	u := d.Upstream
	if u.UsesNATS() {
		r.natsURL("upstream.url", u.URL)
		d.validateNATS(r)
	} else {
		r.brokerURL("upstream.url", u.URL, false)
		d.rejectNATSOnly(r)
	}
	r.tls("upstream", u.URL, u.TLS)
	r.required("upstream.client_id", u.ClientID)
	r.topic("upstream.topic_prefix", u.TopicPrefix)
	r.atLeast("upstream.batch.max_records", u.Batch.MaxRecords, 1)
	if u.Batch.MaxDelay < 0 {
		r.at("upstream.batch.max_delay", "must not be negative, got %v", u.Batch.MaxDelay)
	}
	if !(u.MaxRate > 0) {
		r.at("upstream.max_rate", "must be positive, got %v", u.MaxRate)
	}
	if u.Outbox.MaxBytes <= 0 {
		r.at("upstream.outbox.max_bytes", "must be positive, got %d", u.Outbox.MaxBytes)
	}
	r.oneOf("upstream.outbox.when_full", u.Outbox.WhenFull, "drop_oldest", "drop_newest", "block")
}

// brokerURL checks an MQTT broker URL as paho will read it.
func (r *report) brokerURL(path, raw string, embeddedOK bool) {
	if !r.required(path, raw) {
		return
	}
	u, err := url.Parse(raw)
	raw = redact.URL(raw) // the messages below quote it; a password must not reach a log
	if err != nil || !slices.Contains(brokerSchemes, u.Scheme) {
		if embeddedOK {
			r.at(path, "%q must start with tcp://, mqtt://, mqtts://, ssl://, tls://, ws:// or wss://, or be %q", raw, EmbeddedBroker)
		} else {
			// Only the upstream may not be embedded, and it may also be NATS.
			r.at(path, "%q must start with tcp://, mqtt://, mqtts://, ssl://, tls://, ws:// or wss:// (MQTT), or nats:// (NATS JetStream)", raw)
		}
		return
	}
	if u.Hostname() == "" {
		r.at(path, "%q names no host", raw)
		return
	}
	if u.Port() == "" && u.Scheme != "ws" && u.Scheme != "wss" {
		r.at(path, "%q names no port", raw)
	}
}

// tls checks the TLS files of a connection; loading them is the only way to
// know they are usable.
func (r *report) tls(parent, rawURL string, t TLS) {
	if !t.set() {
		return
	}
	if u, err := url.Parse(rawURL); err == nil && slices.Contains(brokerSchemes, u.Scheme) && !slices.Contains(tlsSchemes, u.Scheme) {
		r.at(join(parent, "tls"), "is set but %s:// does not use TLS; use mqtts://, ssl://, tls:// or wss://", u.Scheme)
		return
	}
	if t.CA != "" {
		if _, err := loadCA(t.CA); err != nil {
			r.at(join(parent, "tls.ca"), "%v", err)
		}
	}
	if t.Cert != "" || t.Key != "" {
		if _, err := loadPair(t.Cert, t.Key); err != nil {
			field := "tls.cert"
			if t.Cert != "" && t.Key == "" {
				field = "tls.key"
			}
			r.at(join(parent, field), "%v", err)
		}
	}
}
