package mqtt

import "testing"

func TestTopicMatchFollowsMQTTWildcards(t *testing.T) {
	tests := []struct {
		filter, topic string
		want          bool
	}{
		{"a/b", "a/b", true},
		{"a/b", "a/c", false},
		{"a/b", "a/b/c", false},
		{"a/b/c", "a/b", false},
		{"+", "a", true},
		{"+", "a/b", false},
		{"+", "", true},
		{"a/+", "a/b", true},
		{"a/+", "a/", true},
		{"a/+", "a", false},
		{"a/+/c", "a/b/c", true},
		{"a/+/c", "a/b/d", false},
		{"+/+", "/a", true},
		{"/+", "/a", true},
		{"#", "a", true},
		{"#", "a/b/c", true},
		{"#", "/", true},
		{"a/#", "a", true},
		{"a/#", "a/b", true},
		{"a/#", "a/b/c", true},
		{"a/#", "b/c", false},
		{"a/#", "ab", false},
		{"a/b/#", "a", false},
		{"sensors/+/data", "sensors/s-1/data", true},
		{"sensors/+/data", "sensors/s-1/status", false},
		{"#", "$SYS/broker", false},
		{"+/broker", "$SYS/broker", false},
		{"$SYS/#", "$SYS/broker", true},
		{"$SYS/+", "$SYS/broker", true},
		{"a//b", "a//b", true},
		{"a/+/b", "a//b", true},
		{"", "", true},
		{"", "a", false},
	}
	for _, tt := range tests {
		t.Run(tt.filter+" against "+tt.topic, func(t *testing.T) {
			if got := TopicMatch(tt.filter, tt.topic); got != tt.want {
				t.Errorf("TopicMatch(%q, %q) = %v, want %v", tt.filter, tt.topic, got, tt.want)
			}
		})
	}
}
