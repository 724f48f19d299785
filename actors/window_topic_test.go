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
	tmpl := compileTopic("edged/{device}/{window}/{key}", "dev", "w")
	for _, tt := range tests {
		if got := tmpl.render(tt.key); got != tt.want {
			t.Errorf("key %q: topic %q, want %q", tt.key, got, tt.want)
		}
	}
}

// The compiled template renders what one strings.Replacer pass over the template
// did: placeholders anywhere, repeated or absent, and none found inside a value.
func TestRenderTopicFillsPlaceholdersOfTheTemplateOnly(t *testing.T) {
	tests := []struct{ tmpl, device, window, key, want string }{
		{"", "dev", "w", "k", ""},
		{"fixed/topic", "dev", "w", "k", "fixed/topic"},
		{"{key}", "dev", "w", "k", "k"},
		{"{key}/{key}-{device}{window}", "dev", "w", "a/b", "a%2Fb/a%2Fb-devw"},
		{"out/{device}/{key}", "{key}", "w", "k", "out/{key}/k"},
		{"out/{window}/{key}", "d", "{device}", "{window}", "out/{device}/{window}"},
		{"{ke{key}y}", "d", "w", "k", "{keky}"},
	}
	for _, tt := range tests {
		if got := compileTopic(tt.tmpl, tt.device, tt.window).render(tt.key); got != tt.want {
			t.Errorf("%q with device %q window %q key %q: %q, want %q", tt.tmpl, tt.device, tt.window, tt.key, got, tt.want)
		}
	}
}
