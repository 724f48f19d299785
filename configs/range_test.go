package configs

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// On a 32-bit build (armv7 gateways; .ci/cross runs this test under qemu) an
// int setting beyond 2**31-1 must be an error at its line, not wrap into a
// different, perhaps negative, setting. On a 64-bit build it loads.
func TestIntegersBeyondThisBuildsIntAreRangeErrors(t *testing.T) {
	rangeErr := func(line int, field, value string) string {
		return fmt.Sprintf("edged.yaml:%d: %s: %s is out of range: a %d-bit build holds %d to %d",
			line, field, value, strconv.IntSize, math.MinInt, math.MaxInt)
	}
	tests := []struct {
		name     string
		daemon   string
		want     string // on every build
		want32   string // on a 32-bit build only
		loaded64 func(d *Daemon) int
		value64  int64
	}{
		{
			name:     "an integer beyond 32 bits",
			daemon:   "limits:\n  max_inflight: 3000000000\n",
			want32:   rangeErr(2, "limits.max_inflight", "3000000000"),
			loaded64: func(d *Daemon) int { return d.Limits.MaxInflight },
			value64:  3_000_000_000,
		},
		{
			name:     "a size beyond 32 bits",
			daemon:   "limits:\n  max_payload: 4GiB\n",
			want32:   rangeErr(2, "limits.max_payload", "4GiB"),
			loaded64: func(d *Daemon) int { return d.Limits.MaxPayload },
			value64:  4 << 30,
		},
		{
			name:   "an integer beyond 64 bits",
			daemon: "upstream:\n  batch:\n    max_records: 99999999999999999999\n",
			want:   rangeErr(3, "upstream.batch.max_records", "99999999999999999999"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := LoadFS(mapFS(map[string]string{"edged.yaml": tt.daemon, "devices/d.yaml": minimalDevice}), "edged.yaml")
			want := tt.want
			if strconv.IntSize == 32 && tt.want32 != "" {
				want = tt.want32
			}
			if want == "" {
				if err != nil {
					t.Fatalf("loading: %v", err)
				}
				if got := tt.loaded64(d); int64(got) != tt.value64 {
					t.Errorf("loaded %d, want %d", got, tt.value64)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want %s", err, want)
			}
		})
	}
}
