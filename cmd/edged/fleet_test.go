package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestFleetPushRefusesInvalidFilesWithFileLineErrorsBeforeConnecting(t *testing.T) {
	dir := plWriteTree(t, map[string]string{
		"ok.yaml":       plValidDevice,
		"bad.yaml":      strings.Replace(plValidDevice, "size: 5s", "size: -5s", 1),
		"twin.yaml":     plValidDevice, // the same device id again
		"bad name.yaml": plValidDevice,
	})
	var out, errb bytes.Buffer
	// Nothing listens on port 1: a push that got past validation would fail to connect.
	code := dispatch([]string{"fleet", "push", "--kv", "nats://127.0.0.1:1", "--host", "gw-1",
		filepath.Join(dir, "ok.yaml"), filepath.Join(dir, "bad.yaml"), filepath.Join(dir, "twin.yaml"), filepath.Join(dir, "bad name.yaml")}, &out, &errb)
	if code != 1 || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q; want exit 1 and nothing written", code, out.String())
	}
	for _, want := range []string{
		filepath.Join(dir, "bad.yaml") + ":10: windows[0].size: ",
		filepath.Join(dir, "twin.yaml") + `:1: device: "d" is already the id of ` + filepath.Join(dir, "ok.yaml") + ":1",
		`"bad name.yaml" cannot name a key`,
		"error(s); nothing written",
	} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

func TestFleetCommandLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"fleet"}, 2, "Usage:"},
		{[]string{"help", "fleet"}, 0, "edged fleet push"},
		{[]string{"fleet", "push", "--kv", "nats://h:4222", "a.yaml"}, 2, "give one of --host H or --all"},
		{[]string{"fleet", "push", "--kv", "nats://h:4222", "--host", "all", "a.yaml"}, 2, "use --all"},
		{[]string{"fleet", "push", "--host", "h", "a.yaml"}, 2, "--kv is required"},
		{[]string{"fleet", "status", "stray"}, 2, `unexpected argument "stray"`},
		{[]string{"fleet", "frob"}, 2, `unknown subcommand "frob"`},
	} {
		var out, errb bytes.Buffer
		code := dispatch(c.args, &out, &errb)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
			t.Errorf("edged %v: exit %d, output %q; want exit %d and %q", c.args, code, out.String()+errb.String(), c.code, c.want)
		}
	}
}
