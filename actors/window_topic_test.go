package actors

import "testing"

func TestRenderTopicMakesEachValueExactlyOneLevel(t *testing.T) {
	tests := []struct{ key, want string }{
		{"s-1", "edged/dev/w/s-1"},
		{"a/b", "edged/dev/w/a%2Fb"},
		{"#", "edged/dev/w/%23"},
		{"+", "edged/dev/w/%2B"},
		{"a\x00b", "edged/dev/w/a%00b"},
		{"", "edged/dev/w/%"},
	}
	for _, tt := range tests {
		if got := renderTopic("edged/{device}/{window}/{key}", "dev", "w", tt.key); got != tt.want {
			t.Errorf("key %q: topic %q, want %q", tt.key, got, tt.want)
		}
	}
}
