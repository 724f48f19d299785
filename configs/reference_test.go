package configs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The daemon-file table of docs/configuration.md is what operators read; it must say
// what the code does. Every row of the table is checked against the defaults applied
// to a file that leaves the field out, so a changed default fails here until the page
// follows. A new row needs an entry below.
func TestTheDocsDaemonTableGivesTheAppliedDefaults(t *testing.T) {
	reference, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	d, err := LoadFS(mapFS(map[string]string{"edged.yaml": "", "devices/d.yaml": minimalDevice}), "edged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	hostname, _ := os.Hostname()
	host := func(s string) string { return strings.ReplaceAll(s, hostname, "<hostname>") }
	applied := map[string]string{
		"data_dir":                            filepath.Base(d.DataDir),
		"durability":                          d.Durability,
		"commit_interval":                     short(d.CommitInterval),
		"commit_on_result":                    fmt.Sprint(d.CommitOnResult),
		"dedup_ttl":                           short(d.DedupTTL),
		"devices_dir":                         filepath.Base(d.DevicesDir),
		"log.format":                          d.Log.Format + ", " + d.Log.Level,
		"http.listen":                         d.HTTP.Listen,
		"limits.max_inflight":                 fmt.Sprint(d.Limits.MaxInflight),
		"limits.min_free_disk":                bytesize(d.Limits.MinFreeDisk),
		"limits.max_key_bytes":                fmt.Sprint(d.Limits.MaxKeyBytes),
		"limits.max_keys_per_window":          fmt.Sprint(d.Limits.MaxKeysPerWindow),
		"limits.stream_retention":             short(d.Limits.StreamRetention),
		"limits.max_payload":                  bytesize(int64(d.Limits.MaxPayload)),
		"broker.url":                          d.Broker.URL,
		"broker.listen":                       DefaultEmbeddedListen,
		"broker.client_id":                    host(d.Broker.ClientID),
		"broker.username":                     "none, " + short(d.Broker.KeepAlive),
		"upstream.url":                        fmt.Sprintf("%q (off)", d.Upstream.URL),
		"upstream.client_id":                  host(d.Upstream.ClientID),
		"upstream.topic_prefix":               host(d.Upstream.TopicPrefix),
		"upstream.batch.max_records":          fmt.Sprintf("%d, %s", d.Upstream.Batch.MaxRecords, short(d.Upstream.Batch.MaxDelay)),
		"upstream.max_rate":                   fmt.Sprint(d.Upstream.MaxRate),
		"upstream.outbox.max_bytes":           bytesize(d.Upstream.Outbox.MaxBytes) + ", " + d.Upstream.Outbox.WhenFull,
		"broker.password_file":                "none",
		"upstream.password_file":              "none",
		"upstream.token":                      "none",
		"upstream.nkey_seed_file":             "none",
		"upstream.jetstream.create_stream":    fmt.Sprint(d.Upstream.NATS.JetStream.CreateStream),
		"upstream.jetstream.stream":           d.Upstream.NATS.JetStream.Stream + ", " + d.Upstream.NATS.JetStream.Storage,
		"upstream.jetstream.duplicate_window": short(d.Upstream.NATS.JetStream.DuplicateWindow),
		"metrics.per_topic":                   fmt.Sprint(d.Metrics.PerTopic),
		"limits.memory":                       bytesize(d.Limits.Memory),
		"fleet.kv.url":                        fmt.Sprintf("%q (off)", d.Fleet.KV.URL),
		"fleet.kv.bucket":                     d.Fleet.KV.Bucket + ", " + d.Fleet.KV.Prefix,
		"fleet.kv.host":                       host(d.Fleet.KV.Host),
		"fleet.kv.username":                   "none",
	}
	section := string(reference)
	start := strings.Index(section, "## Daemon file")
	end := strings.Index(section, "## Device file")
	if start < 0 || end < start {
		t.Fatal("docs/configuration.md has no Daemon file section before the Device file section")
	}
	row := regexp.MustCompile("(?m)^\\| `([^`]+)`[^|]*\\| (.*?) \\|")
	rows := row.FindAllStringSubmatch(section[start:end], -1)
	if len(rows) < len(applied)-2 {
		t.Fatalf("found %d rows in the daemon table of docs/configuration.md; the pattern no longer matches it", len(rows))
	}
	for _, m := range rows {
		field, cell := m[1], strings.ReplaceAll(m[2], "`", "")
		want, ok := applied[field]
		if !ok {
			t.Errorf("docs/configuration.md row %q: add it to this test with the default the code applies", field)
			continue
		}
		if cell != want && !strings.HasPrefix(cell, want+" ") {
			t.Errorf("docs/configuration.md says %s defaults to %q; the code applies %q", field, cell, want)
		}
	}
}

// short writes a duration as the docs do: 100ms, 30s, 1h.
func short(d time.Duration) string {
	s := d.String()
	for _, z := range []string{"m0s", "h0m"} {
		s = strings.Replace(s, z, z[:1], 1)
	}
	return s
}

// bytesize writes a size as the docs do: 64KiB, 64MiB.
func bytesize(n int64) string {
	for _, u := range []struct {
		unit string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.unit)
		}
	}
	return fmt.Sprint(n)
}
