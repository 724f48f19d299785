package actors

import (
	"strings"

	"github.com/edged/edged/mqtt"
)

// topicTemplate is an output topic template compiled once per window definition:
// {device} and {window} are filled in, and parts holds the text around each {key}.
// A window actor renders its topic with one allocation at most (none without {key}),
// which matters when a restart spawns 100,000 of them.
type topicTemplate struct {
	parts []string // len(parts)-1 keys go between them
	fixed int      // bytes of the parts together
}

// compileTopic compiles tmpl for a device and window. Each value is escaped into one
// topic level (mqtt.EscapeLevel), so a key holding '/', '+', '#' or NUL can add no
// level and no wildcard; the result record keeps the raw key. Placeholders are found
// in tmpl only, never inside a filled-in value, as strings.Replacer would.
func compileTopic(tmpl, device, window string) topicTemplate {
	var t topicTemplate
	var cur strings.Builder
	for i := 0; i < len(tmpl); {
		switch rest := tmpl[i:]; {
		case strings.HasPrefix(rest, "{device}"):
			cur.WriteString(mqtt.EscapeLevel(device))
			i += len("{device}")
		case strings.HasPrefix(rest, "{window}"):
			cur.WriteString(mqtt.EscapeLevel(window))
			i += len("{window}")
		case strings.HasPrefix(rest, "{key}"):
			t.parts = append(t.parts, cur.String())
			cur.Reset()
			i += len("{key}")
		default:
			cur.WriteByte(tmpl[i])
			i++
		}
	}
	t.parts = append(t.parts, cur.String())
	for _, p := range t.parts {
		t.fixed += len(p)
	}
	return t
}

// render is the topic of one key.
func (t topicTemplate) render(key string) string {
	if len(t.parts) == 1 {
		return t.parts[0]
	}
	esc := mqtt.EscapeLevel(key)
	var b strings.Builder
	b.Grow(t.fixed + (len(t.parts)-1)*len(esc))
	b.WriteString(t.parts[0])
	for _, p := range t.parts[1:] {
		b.WriteString(esc)
		b.WriteString(p)
	}
	return b.String()
}
