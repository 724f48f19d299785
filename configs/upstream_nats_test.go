package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loadDaemonDir writes a daemon file and the minimal device into a fresh
// directory (with more files, by name) and loads it from the disk.
func loadDaemonDir(t *testing.T, daemon string, more map[string]string) (*Daemon, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "devices"), 0o755); err != nil {
		t.Fatal(err)
	}
	more["edged.yaml"], more["devices/d.yaml"] = daemon, minimalDevice
	for name, body := range more {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Load(filepath.Join(dir, "edged.yaml"))
}

func TestANATSUpstreamIsReadAndItsDefaultsApplied(t *testing.T) {
	d, err := loadDaemonDir(t, "upstream:\n  url: nats://127.0.0.1:4222,nats://10.0.0.2:4222\n  token_file: token\n  jetstream:\n    create_stream: true\n",
		map[string]string{"token": "s3cret\n"})
	if err != nil {
		t.Fatal(err)
	}
	u := d.Upstream
	want := JetStream{CreateStream: true, Stream: "EDGED", Storage: "file", DuplicateWindow: time.Hour}
	if !u.UsesNATS() || u.NATS.Token != "s3cret" || u.NATS.JetStream != want {
		t.Errorf("got NATS %v, token %q, jetstream %+v; want NATS, token from the file, %+v", u.UsesNATS(), u.NATS.Token, u.NATS.JetStream, want)
	}
}

func TestBadNATSUpstreamSettingsNameTheFieldAndReason(t *testing.T) {
	tests := []struct {
		name, upstream string
		want           []string
	}{
		{
			name:     "a NATS-only setting on an MQTT upstream",
			upstream: "  url: tcp://127.0.0.1:1883\n  token: x\n  jetstream:\n    create_stream: true\n",
			want: []string{
				"edged.yaml:3: upstream.token: is only for a NATS JetStream upstream (upstream.url nats://…), not tcp://127.0.0.1:1883",
				"edged.yaml:4: upstream.jetstream: is only for a NATS JetStream upstream",
			},
		},
		{
			name:     "two ways to authenticate",
			upstream: "  url: nats://127.0.0.1:4222\n  username: u\n  token: t\n",
			want:     []string{"edged.yaml:1: upstream: set only one way to authenticate to NATS"},
		},
		{
			name:     "a list of servers with one that is not NATS",
			upstream: "  url: nats://a:4222,tcp://b:1883\n",
			want:     []string{`edged.yaml:2: upstream.url: "tcp://b:1883" must start with nats://`},
		},
		{
			name:     "a creds file that holds no credentials",
			upstream: "  url: nats://127.0.0.1:4222\n  creds_file: garbage.creds\n",
			want:     []string{"edged.yaml:3: upstream.creds_file: ", "garbage.creds holds no user JWT"},
		},
		{
			name:     "a missing nkey seed file",
			upstream: "  url: nats://127.0.0.1:4222\n  nkey_seed_file: /nonexistent/user.nk\n",
			want:     []string{"edged.yaml:3: upstream.nkey_seed_file: cannot read /nonexistent/user.nk"},
		},
		{
			name:     "a duplicate window shorter than a resend",
			upstream: "  url: nats://127.0.0.1:4222\n  jetstream:\n    duplicate_window: 30s\n    storage: disk\n    stream: a.b\n",
			want: []string{
				"edged.yaml:4: upstream.jetstream.duplicate_window: must be at least 2m0s",
				`edged.yaml:5: upstream.jetstream.storage: "disk" is not one of: file, memory`,
				`edged.yaml:6: upstream.jetstream.stream: "a.b" is not a JetStream stream name`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadDaemonDir(t, "upstream:\n"+tt.upstream, map[string]string{"garbage.creds": "not a creds file\n"})
			if err == nil {
				t.Fatal("the config was accepted")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("errors\n%v\ndo not contain\n%s", err, w)
				}
			}
		})
	}
}
