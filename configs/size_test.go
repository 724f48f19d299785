package configs

import "testing"

func TestSizesReadAsBytes(t *testing.T) {
	tests := []struct {
		in    string
		want  int64
		valid bool
	}{
		{"65536", 65536, true},
		{"64KiB", 64 << 10, true},
		{"64 MiB", 64 << 20, true},
		{"2GiB", 2 << 30, true},
		{"10KB", 10_000, true},
		{"3MB", 3_000_000, true},
		{"512B", 512, true},
		{"1.5MiB", 0, false},
		{"64XB", 0, false},
		{"MiB", 0, false},
		{"9999999999GiB", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseSize(tt.in)
			if (err == nil) != tt.valid || got != tt.want {
				t.Errorf("parseSize(%q) = %d, %v; want %d, valid %v", tt.in, got, err, tt.want, tt.valid)
			}
		})
	}
}
