package configs

import (
	"testing"
	"time"
)

func TestWindowsPerRecordIsSizeOverSlideRoundedUp(t *testing.T) {
	tests := []struct {
		w    Window
		want int64
	}{
		{Window{Type: "tumbling", Size: time.Minute}, 1},
		{Window{Type: "session", Gap: time.Minute}, 1},
		{Window{Type: "sliding", Size: time.Minute, Slide: 10 * time.Second}, 6},
		{Window{Type: "sliding", Size: time.Minute, Slide: 7 * time.Second}, 9},
		{Window{Type: "sliding", Size: time.Second, Slide: time.Millisecond}, MaxWindowsPerRecord},
		{Window{Type: "sliding", Size: time.Hour, Slide: time.Millisecond}, 3_600_000},
	}
	for _, tt := range tests {
		if got := tt.w.WindowsPerRecord(); got != tt.want {
			t.Errorf("%s %v/%v: %d windows per record, want %d", tt.w.Type, tt.w.Size, tt.w.Slide, got, tt.want)
		}
	}
}
