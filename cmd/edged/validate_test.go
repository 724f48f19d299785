package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plValidDevice is a device file that passes validation; its stream entry is on
// lines 3 to 5 and its window entry on lines 7 to 11.
const plValidDevice = `device: d
streams:
  - name: s
    topic: sensors/+/data
    timestamp: {field: ts, unit: ms}
windows:
  - name: w
    stream: s
    type: tumbling
    size: 5s
    aggregates: [count]
`

// plWriteTree writes files (paths relative to a new temp dir) and returns the dir.
func plWriteTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func plRunValidate(path string) (code int, stdout, stderr string) {
	var out, errBuf bytes.Buffer
	code = dispatch([]string{"validate", "--config", path}, &out, &errBuf)
	return code, out.String(), errBuf.String()
}

func TestValidateReportsEachKindOfBadConfigAsFileLineFieldReason(t *testing.T) {
	tests := []struct {
		name   string
		daemon string
		device string            // devices/d.yaml; plValidDevice when empty
		more   map[string]string // further files
		want   []string          // stderr lines before the count; {dir} is the config dir
	}{
		{
			name:   "an unknown field in the daemon file",
			daemon: "durabilty: power\n",
			want:   []string{"{dir}/edged.yaml:1: durabilty: unknown field (valid: data_dir, durability, commit_interval, commit_on_result, dedup_ttl, devices_dir, log, http, metrics, limits, broker, upstream, fleet)"},
		},
		{
			name:   "an unknown field in a device file",
			device: strings.Replace(plValidDevice, "    size: 5s\n", "    size: 5s\n    colour: red\n", 1),
			want:   []string{"{dir}/devices/d.yaml:11: windows[0].colour: unknown field (valid: name, stream, type, size, slide, gap, offset, allowed_lateness, accumulation, early, passivate_after, aggregates, output, late, upstream_results)"},
		},
		{
			name:   "a wrong type",
			daemon: "limits: {max_inflight: many}\n",
			want:   []string{"{dir}/edged.yaml:1: limits.max_inflight: expected an integer, got \"many\""},
		},
		{
			name:   "a negative duration",
			device: strings.Replace(plValidDevice, "    size: 5s\n", "    size: 5s\n    allowed_lateness: -1s\n", 1),
			want:   []string{"{dir}/devices/d.yaml:11: windows[0].allowed_lateness: must not be negative, got -1s"},
		},
		{
			name:   "a window on a stream that does not exist",
			device: strings.Replace(plValidDevice, "    stream: s\n", "    stream: boilers\n", 1),
			want:   []string{"{dir}/devices/d.yaml:8: windows[0].stream: no stream named \"boilers\" in this device (streams: s)"},
		},
		{
			name: "a device id used by two files",
			more: map[string]string{"devices/e.yaml": "# the same id again\n" + plValidDevice},
			want: []string{"{dir}/devices/e.yaml:2: device: \"d\" is already the id of {dir}/devices/d.yaml:1; device ids must be unique"},
		},
		{
			name:   "a YAML syntax error",
			device: "device: d\nstreams:\n  - name: [s\n",
			want:   []string{"{dir}/devices/d.yaml:2: did not find expected ',' or ']'"},
		},
		{
			name:   "a timestamp unit that is not one",
			device: strings.Replace(plValidDevice, "unit: ms", "unit: sec", 1),
			want:   []string{"{dir}/devices/d.yaml:5: streams[0].timestamp.unit: \"sec\" is not one of: s, ms, us, ns, rfc3339"},
		},
		{
			name:   "a devices_dir without device files",
			daemon: "devices_dir: empty\n",
			more:   map[string]string{"empty/README": "not yaml"},
			want:   []string{"{dir}/edged.yaml:1: devices_dir: {dir}/empty holds no device files (*.yaml, *.yml)"},
		},
		{
			name:   "problems in several files, all printed at once in file and line order",
			daemon: "durability: disk\ncommit_interval: -5ms\n",
			device: strings.Replace(plValidDevice, "    size: 5s\n", "    size: -5s\n", 1),
			more: map[string]string{"devices/e.yaml": strings.Replace(strings.Replace(plValidDevice, "device: d", "device: e", 1),
				"    topic: sensors/+/data\n", "    topic: sensors/+/data\n    qos: 3\n", 1)},
			want: []string{
				"{dir}/devices/d.yaml:10: windows[0].size: must not be negative, got -5s",
				"{dir}/devices/e.yaml:5: streams[0].qos: expected a QoS of 0, 1 or 2, got 3",
				"{dir}/edged.yaml:1: durability: \"disk\" is not one of: process, power, memory",
				"{dir}/edged.yaml:2: commit_interval: must be positive, got -5ms",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"edged.yaml": tt.daemon}
			if !strings.Contains(tt.daemon, "devices_dir") {
				files["devices/d.yaml"] = plValidDevice
				if tt.device != "" {
					files["devices/d.yaml"] = tt.device
				}
			}
			for name, body := range tt.more {
				files[name] = body
			}
			dir := plWriteTree(t, files)
			code, stdout, stderr := plRunValidate(filepath.Join(dir, "edged.yaml"))
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = strings.ReplaceAll(w, "{dir}", dir)
			}
			want = append(want, fmt.Sprintf("%d error(s)", len(tt.want)))
			if got := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, strings.Join(want, "\n"))
			}
			if code == 0 {
				t.Errorf("exit code 0, want non-zero")
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing for a bad config", stdout)
			}
		})
	}
}

func TestValidateAcceptsEveryShippedConfig(t *testing.T) {
	daemons, err := filepath.Glob("../../configs/*/edged.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"../../configs/examples/edged.yaml", "../../configs/demo/edged.yaml"} {
		if !strings.Contains(strings.Join(daemons, "\n"), want) {
			t.Fatalf("found daemon files %v, missing %s", daemons, want)
		}
	}
	for _, path := range daemons {
		t.Run(path, func(t *testing.T) {
			devices, err := filepath.Glob(filepath.Join(filepath.Dir(path), "devices", "*.y*ml"))
			if err != nil || len(devices) == 0 {
				t.Fatalf("no device files next to %s: %v", path, err)
			}
			code, stdout, stderr := plRunValidate(path)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			// Every device file next to the daemon file was read and passed.
			if prefix := fmt.Sprintf("%s: ok (%d devices,", path, len(devices)); !strings.HasPrefix(stdout, prefix) {
				t.Errorf("stdout = %q, want it to start with %q", stdout, prefix)
			}
			// Then one estimate per window spec.
			var windows int
			fmt.Sscanf(stdout[strings.Index(stdout, " streams, ")+len(" streams, "):], "%d windows", &windows)
			if got := strings.Count(stdout, " window(s) per record\n"); windows == 0 || got != windows {
				t.Errorf("stdout = %q: %d estimates of windows per record, want one per window", stdout, got)
			}
		})
	}
}

func TestValidateNeedsAConfigAndAReadableFile(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no --config", []string{"validate"}, "edged validate: --config is required\nRun 'edged help validate' for its flags.\n"},
		{"a file that does not exist", []string{"validate", "--config", "/nonexistent/edged.yaml"},
			"/nonexistent/edged.yaml: cannot read the file: no such file or directory\n1 error(s)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errBuf bytes.Buffer
			code := dispatch(tt.args, &out, &errBuf)
			if code == 0 || errBuf.String() != tt.want {
				t.Errorf("exit %d, stderr %q; want non-zero and %q", code, errBuf.String(), tt.want)
			}
		})
	}
}
