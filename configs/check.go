package configs

import (
	"net"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Checks shared by the daemon and device validators. Each reports at most one
// problem for its field and returns whether the value passed.

func (r *report) required(path, v string) bool {
	if v == "" {
		r.at(path, "is required")
		return false
	}
	return true
}

func (r *report) oneOf(path, v string, valid ...string) bool {
	if !slices.Contains(valid, v) {
		r.at(path, "%q is not one of: %s", v, strings.Join(valid, ", "))
		return false
	}
	return true
}

func (r *report) positive(path string, d time.Duration) bool {
	if d <= 0 {
		r.at(path, "must be positive, got %v", d)
		return false
	}
	return true
}

// eventTime checks a duration that becomes int64 milliseconds of event time.
func (r *report) eventTime(path string, d time.Duration) bool {
	switch {
	case d < 0:
		r.at(path, "must not be negative, got %v", d)
	case d%time.Millisecond != 0:
		r.at(path, "must be a whole number of milliseconds, got %v", d)
	default:
		return true
	}
	return false
}

func (r *report) atLeast(path string, v, min int) bool {
	if v < min {
		r.at(path, "must be at least %d, got %d", min, v)
		return false
	}
	return true
}

func (r *report) hostPort(path, v string) bool {
	if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
		r.at(path, "%q is not a host:port address", v)
		return false
	}
	return true
}

func (r *report) qosValue(path string, q byte) {
	if q > 2 {
		r.at(path, "expected a QoS of 0, 1 or 2, got %d", q)
	}
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// name checks a device, stream or window name, which ends up in MQTT topics
// and state store keys.
func (r *report) name(path, v string) bool {
	if !r.required(path, v) {
		return false
	}
	if !namePattern.MatchString(v) {
		r.at(path, "%q may hold only letters, digits, '.', '_' and '-', and must start with a letter or digit", v)
		return false
	}
	return true
}

// unique reports a name that an earlier entry, recorded in seen with its
// line, already has.
func (r *report) unique(seen map[string]int, path, kind, name string, line int) {
	if name == "" {
		return
	}
	if first, dup := seen[name]; dup {
		r.at(path, "%q is already the name of the %s on line %d", name, kind, first)
		return
	}
	seen[name] = line
}

// fieldPath checks a dotted path into a JSON payload.
func (r *report) fieldPath(path, v string) bool {
	if !r.required(path, v) {
		return false
	}
	if slices.Contains(strings.Split(v, "."), "") {
		r.at(path, "%q is not a dotted field path like ts or meta.ts", v)
		return false
	}
	return true
}

// filter checks an MQTT subscription filter and returns its number of
// levels, and whether it ends with the multi-level wildcard.
func (r *report) filter(path, f string) (levels int, multi, ok bool) {
	if !r.required(path, f) {
		return 0, false, false
	}
	parts := strings.Split(f, "/")
	for i, l := range parts {
		switch {
		case strings.Contains(l, "#") && (l != "#" || i != len(parts)-1):
			r.at(path, "%q is not an MQTT filter: # must be the whole last level", f)
			return 0, false, false
		case strings.Contains(l, "+") && l != "+":
			r.at(path, "%q is not an MQTT filter: + must be a whole level", f)
			return 0, false, false
		}
	}
	return len(parts), parts[len(parts)-1] == "#", true
}

// topic checks an MQTT topic to publish to, where wildcards are not allowed.
func (r *report) topic(path, t string) bool {
	if !r.required(path, t) {
		return false
	}
	if strings.ContainsAny(t, "+#") {
		r.at(path, "%q is not a topic to publish to: it must not hold + or #", t)
		return false
	}
	return true
}

var placeholder = regexp.MustCompile(`\{[^{}]*\}`)

// template checks an output topic with {device}, {window} and {key}.
func (r *report) template(path, t string) bool {
	for _, p := range placeholder.FindAllString(t, -1) {
		if !slices.Contains([]string{"{device}", "{window}", "{key}"}, p) {
			r.at(path, "unknown placeholder %s in %q (use {device}, {window}, {key})", p, t)
			return false
		}
	}
	if rest := placeholder.ReplaceAllString(t, "x"); strings.ContainsAny(rest, "{}") {
		r.at(path, "%q has an unbalanced { or }", t)
		return false
	}
	return r.topic(path, t)
}
