package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestDispatchConventions pins what scripts and operators rely on: help on stdout
// with exit 0, usage errors once on stderr with exit 2, the version on request.
func TestDispatchConventions(t *testing.T) {
	cases := []struct {
		args             []string
		code             int
		stdout, stderr   string // substrings; "" means the stream must be empty
		stderrOnceSubstr string
	}{
		{args: nil, code: 2, stderr: "Usage:"},
		{args: []string{"help"}, code: 0, stdout: "Usage:"},
		{args: []string{"--help"}, code: 0, stdout: "Usage:"},
		{args: []string{"help", "run"}, code: 0, stdout: "-config"},
		{args: []string{"run", "-h"}, code: 0, stdout: "-config"},
		{args: []string{"run"}, code: 2, stderr: "--config is required", stderrOnceSubstr: "--config is required"},
		{args: []string{"run", "--bogus"}, code: 2, stderr: "-bogus", stderrOnceSubstr: "not defined: -bogus"},
		{args: []string{"validate", "--config", "x.yaml", "extra"}, code: 2, stderr: `unexpected argument "extra"`},
		{args: []string{"inspect"}, code: 2, stderr: "--data is required"},
		{args: []string{"frobnicate"}, code: 2, stderr: `unknown command "frobnicate"`},
		{args: []string{"version"}, code: 0, stdout: "edged "},
		{args: []string{"--version"}, code: 0, stdout: "commit "},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := dispatch(c.args, &out, &errb)
		name := strings.Join(c.args, " ")
		if code != c.code {
			t.Errorf("edged %s: exit %d, want %d (stderr %q)", name, code, c.code, errb.String())
		}
		check := func(stream, got, want string) {
			if want == "" && got != "" {
				t.Errorf("edged %s: %s should be empty, got %q", name, stream, got)
			}
			if !strings.Contains(got, want) {
				t.Errorf("edged %s: %s %q lacks %q", name, stream, got, want)
			}
		}
		check("stdout", out.String(), c.stdout)
		check("stderr", errb.String(), c.stderr)
		if s := c.stderrOnceSubstr; s != "" && strings.Count(errb.String(), s) != 1 {
			t.Errorf("edged %s: %q printed %d times, want once", name, s, strings.Count(errb.String(), s))
		}
	}
}
