package configs

import (
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// Config values may name environment variables, so that secrets and per-gateway
// settings stay out of the files a fleet shares: ${VAR} is the variable's value,
// ${VAR:-text} falls back to text when VAR is unset or empty, and $$ is a literal $.
// Substitution happens in values only (never in keys or comments), before decoding,
// so ${PORT} works in a number field as well as in a string.

// lookupEnv is os.LookupEnv; tests replace it.
var lookupEnv = os.LookupEnv

// expandEnv substitutes variables in every scalar value under n; path names the
// field in errors.
func expandEnv(r *report, path string, n *yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			expandEnv(r, path, c)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			expandEnv(r, join(path, n.Content[i].Value), n.Content[i+1])
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			expandEnv(r, index(path, i), c)
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "$") {
			return
		}
		v, reason := substitute(n.Value)
		if reason != "" {
			r.atLine(n.Line, path, "%s", reason)
			return
		}
		n.Value = v
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
			n.Tag = "" // an unquoted value takes the type of what it became
		}
	}
}

// substitute expands s, or says why it cannot.
func substitute(s string) (string, string) {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			b.WriteString(s)
			return b.String(), ""
		}
		b.WriteString(s[:i])
		s = s[i+1:]
		switch {
		case strings.HasPrefix(s, "$"):
			b.WriteByte('$')
			s = s[1:]
			continue
		case !strings.HasPrefix(s, "{"):
			b.WriteByte('$') // a lone $ (e.g. in a password) is text
			continue
		}
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", "unterminated ${ (write $$ for a literal $)"
		}
		ref := s[1:end]
		s = s[end+1:]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validEnvName(name) {
			return "", "${" + ref + "}: not a variable name (letters, digits, _)"
		}
		v, ok := lookupEnv(name)
		switch {
		case hasDef && v == "":
			v = def
		case !ok:
			return "", "${" + name + "} is not set in the environment (use ${" + name + ":-default} for a fallback)"
		}
		b.WriteString(v)
	}
}

func validEnvName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
