package mqtt

// TopicMatch reports whether topic matches the subscription filter, with MQTT
// wildcards: "+" matches one level, a trailing "#" matches the parent level
// and everything below it. Topics starting with "$" are not matched by a
// filter starting with a wildcard (MQTT 3.1.1, 4.7.2). It allocates nothing.
func TopicMatch(filter, topic string) bool {
	if len(topic) > 0 && topic[0] == '$' && len(filter) > 0 && (filter[0] == '+' || filter[0] == '#') {
		return false
	}
	for {
		fl, frest, fmore := cutLevel(filter)
		if fl == "#" && !fmore {
			return true
		}
		tl, trest, tmore := cutLevel(topic)
		if fl != "+" && fl != tl {
			return false
		}
		switch {
		case !fmore && !tmore:
			return true
		case !tmore:
			// "a/#" matches "a": the filter may end in "/#".
			return frest == "#"
		case !fmore:
			return false
		}
		filter, topic = frest, trest
	}
}

// cutLevel splits s at its first '/'; more is false for the last level.
func cutLevel(s string) (level, rest string, more bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
