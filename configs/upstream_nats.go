package configs

import (
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nkeys"

	"github.com/edged/edged/internal/redact"
)

// UpstreamNATS holds what only a NATS JetStream upstream (upstream.url nats://…)
// uses: the credentials NATS has besides username and password, and the stream.
// Relative file paths are resolved against the daemon file's directory.
type UpstreamNATS struct {
	Token        string
	TokenFile    string // Load reads it into Token, as password_file into Password
	NKeySeedFile string // a user nkey seed (SU…)
	CredsFile    string // a .creds file: user JWT and nkey seed
	JetStream    JetStream
}

// JetStream is the stream that receives the upstream subjects.
type JetStream struct {
	// CreateStream makes edged create Stream (or add its subjects to it) at start;
	// otherwise a stream bound to the subjects must exist.
	CreateStream bool
	Stream       string
	Storage      string // "file" or "memory"; only with CreateStream
	// DuplicateWindow is how long JetStream remembers a message id. A record edged
	// sends again (its ack was lost, or edged stopped before deleting it) is dropped
	// by the server only within it.
	DuplicateWindow time.Duration
}

const (
	DefaultJetStreamStream  = "EDGED"
	DefaultJetStreamStorage = "file"
	DefaultDuplicateWindow  = time.Hour
	// MinDuplicateWindow: edged sends a batch again after a minute without an ack
	// while connected; the copy must still fall within the window to be dropped.
	MinDuplicateWindow = 2 * time.Minute
)

// UsesNATS reports whether the upstream is NATS JetStream rather than MQTT.
func (u Upstream) UsesNATS() bool { return strings.HasPrefix(u.URL, "nats://") }

func applyNATSDefaults(p positions, n *UpstreamNATS) {
	or(p, "upstream.jetstream.stream", &n.JetStream.Stream, DefaultJetStreamStream)
	or(p, "upstream.jetstream.storage", &n.JetStream.Storage, DefaultJetStreamStorage)
	or(p, "upstream.jetstream.duplicate_window", &n.JetStream.DuplicateWindow, DefaultDuplicateWindow)
}

func natsSchema(n *UpstreamNATS) []field {
	return []field{
		{"token", str(&n.Token)},
		{"token_file", str(&n.TokenFile)},
		{"nkey_seed_file", str(&n.NKeySeedFile)},
		{"creds_file", str(&n.CredsFile)},
		{"jetstream", mapping(
			field{"create_stream", boolean(&n.JetStream.CreateStream)},
			field{"stream", str(&n.JetStream.Stream)},
			field{"storage", str(&n.JetStream.Storage)},
			field{"duplicate_window", duration(&n.JetStream.DuplicateWindow)},
		)},
	}
}

// natsURL checks a NATS server URL, or a comma-separated list of a cluster's.
func (r *report) natsURL(path, raw string) {
	for _, one := range strings.Split(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		shown := redact.URL(one)
		switch {
		case err != nil || u.Scheme != "nats":
			r.at(path, "%q must start with nats:// (a list of servers is comma-separated)", shown)
			return
		case u.Hostname() == "":
			r.at(path, "%q names no host", shown)
			return
		}
	}
}

// validateNATS checks what only a NATS upstream uses. The credential files are
// read here, so a missing or garbled one is reported by edged validate rather
// than at the first connection.
func (d *Daemon) validateNATS(r *report) {
	n := d.Upstream.NATS
	r.natsAuth("upstream", d.Upstream.Username+d.Upstream.Password, n.Token, n.NKeySeedFile, n.CredsFile)
	js := n.JetStream
	if r.required("upstream.jetstream.stream", js.Stream) && strings.ContainsAny(js.Stream, " \t\r\n.*>/\\") {
		r.at("upstream.jetstream.stream", "%q is not a JetStream stream name: it must not hold whitespace, '.', '*', '>', '/' or '\\'", js.Stream)
	}
	r.oneOf("upstream.jetstream.storage", js.Storage, "file", "memory")
	if js.DuplicateWindow < MinDuplicateWindow {
		r.at("upstream.jetstream.duplicate_window", "must be at least %v (edged resends a batch that got no ack within a minute, and the copy must fall within the window), got %v", MinDuplicateWindow, js.DuplicateWindow)
	}
}

// natsAuth checks the credentials of one NATS connection (section names it in
// errors): at most one way to authenticate, and readable key files.
func (r *report) natsAuth(section, userPassword, token, nkeySeedFile, credsFile string) {
	set := 0
	for _, v := range []string{userPassword, token, nkeySeedFile, credsFile} {
		if v != "" {
			set++
		}
	}
	if set > 1 {
		r.at(section, "set only one way to authenticate to NATS: username/password, token, nkey_seed_file or creds_file")
	}
	if nkeySeedFile != "" {
		r.natsKeyFile(section+".nkey_seed_file", nkeySeedFile, false)
	}
	if credsFile != "" {
		r.natsKeyFile(section+".creds_file", credsFile, true)
	}
}

// natsKeyFile checks that file holds a user nkey seed and, for a .creds file, a JWT.
func (r *report) natsKeyFile(path, file string, creds bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		r.at(path, "cannot read %s: %v", file, cause(err))
		return
	}
	if creds {
		if jwt, err := nkeys.ParseDecoratedJWT(data); err != nil || !strings.HasPrefix(jwt, "eyJ") {
			r.at(path, "%s holds no user JWT (a .creds file has a -----BEGIN NATS USER JWT----- block)", file)
			return
		}
	}
	if _, err := nkeys.ParseDecoratedUserNKey(data); err != nil {
		r.at(path, "%s holds no user nkey seed (SU…): %v", file, err)
	}
}

// rejectNATSOnly reports the NATS settings of an MQTT upstream: they would be ignored.
func (d *Daemon) rejectNATSOnly(r *report) {
	n := d.Upstream.NATS
	for _, f := range []struct {
		path string
		set  bool
	}{
		{"upstream.token", n.Token != ""},
		{"upstream.token_file", n.TokenFile != ""},
		{"upstream.nkey_seed_file", n.NKeySeedFile != ""},
		{"upstream.creds_file", n.CredsFile != ""},
		{"upstream.jetstream", r.pos.has("upstream.jetstream") || n.JetStream.CreateStream},
	} {
		if f.set {
			r.at(f.path, "is only for a NATS JetStream upstream (upstream.url nats://…), not %s", redact.URL(d.Upstream.URL))
		}
	}
}
