package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnvironmentVariablesInValues(t *testing.T) {
	env := map[string]string{"BROKER": "tcp://10.0.0.5:1883", "INFLIGHT": "500", "EMPTY": ""}
	old := lookupEnv
	lookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	defer func() { lookupEnv = old }()

	daemon := `broker:
  url: ${BROKER}
  username: "${USER_NAME:-edged}"
  password: "pa$$word and $5"
limits:
  max_inflight: ${INFLIGHT}
upstream:
  topic_prefix: ${EMPTY:-edged/gw}
devices_dir: devices
`
	d, err := LoadFS(mapFS(map[string]string{"edged.yaml": daemon, "devices/d.yaml": minimalDevice}), "edged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if d.Broker.URL != "tcp://10.0.0.5:1883" || d.Broker.Username != "edged" || d.Broker.Password != "pa$word and $5" ||
		d.Limits.MaxInflight != 500 || d.Upstream.TopicPrefix != "edged/gw" {
		t.Errorf("got url %q user %q password %q inflight %d prefix %q", d.Broker.URL, d.Broker.Username,
			d.Broker.Password, d.Limits.MaxInflight, d.Upstream.TopicPrefix)
	}
}

func TestEnvironmentVariableErrorsNameTheField(t *testing.T) {
	old := lookupEnv
	lookupEnv = func(string) (string, bool) { return "", false }
	defer func() { lookupEnv = old }()
	for daemon, want := range map[string]string{
		"broker:\n  url: ${NOPE}\n":     "edged.yaml:2: broker.url: ${NOPE} is not set",
		"broker:\n  url: ${NOPE\n":      "edged.yaml:2: broker.url: unterminated ${",
		"broker:\n  url: ${9-lives}\n":  "edged.yaml:2: broker.url: ${9-lives}: not a variable name",
		"log:\n  level: ${LEVEL:-x}\n":  "edged.yaml:2: log.level:",
		"limits:\n  max_inflight: $$\n": "edged.yaml:2: limits.max_inflight:",
	} {
		_, err := LoadFS(mapFS(map[string]string{"edged.yaml": daemon, "devices/d.yaml": minimalDevice}), "edged.yaml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error containing %q", daemon, err, want)
		}
	}
}

func TestPasswordFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("devices/d.yaml", minimalDevice)
	write("secret", "s3cr$t\n")
	write("edged.yaml", "broker:\n  password_file: secret\n")
	d, err := Load(filepath.Join(dir, "edged.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Broker.Password != "s3cr$t" {
		t.Errorf("password %q, want the file's contents without the newline", d.Broker.Password)
	}

	write("edged.yaml", "broker:\n  password: x\n  password_file: secret\nupstream:\n  password_file: missing\n")
	_, err = Load(filepath.Join(dir, "edged.yaml"))
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != 2 ||
		!strings.Contains(errs[0].Error(), "edged.yaml:3: broker.password_file: set password or password_file, not both") ||
		!strings.Contains(errs[1].Error(), "upstream.password_file: cannot read") {
		t.Errorf("got %v", err)
	}
}
