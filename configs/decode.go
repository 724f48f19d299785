package configs

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// The decoder walks yaml.v3 nodes instead of unmarshalling into structs so that
// every problem keeps its line, unknown and repeated fields are caught, and
// decoding goes on after a bad value to report the rest of the file too.

// binder decodes the node n found at path into the value it was built for.
type binder func(r *report, path string, n *yaml.Node)

// field binds one mapping key.
type field struct {
	name string
	bind binder
}

var syntaxError = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML decodes data into its document's root node (nil for an empty
// file), or reports why it cannot and returns false.
func parseYAML(r *report, data []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, true
		}
		r.atLine(syntaxLine(err))
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		r.atLine(extra.Line, "", "holds more than one YAML document; a config file has exactly one")
		return nil, false
	}
	if len(doc.Content) == 0 {
		return nil, true
	}
	expandEnv(r, "", doc.Content[0])
	return doc.Content[0], true
}

// syntaxLine splits a yaml.v3 syntax error into its line and reason.
func syntaxLine(err error) (int, string, string) {
	if m := syntaxError.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return line, "", m[2]
	}
	return 0, "", strings.TrimPrefix(err.Error(), "yaml: ")
}

// deref follows aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names what a node holds for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	if n.ShortTag() == "!!str" {
		return strconv.Quote(n.Value)
	}
	return n.Value
}

// mapping decodes a mapping whose keys must all be among fields. A null value
// (a key with nothing after it) leaves every field unset.
func mapping(fields ...field) binder {
	return func(r *report, path string, n *yaml.Node) {
		n = deref(n)
		if isNull(n) {
			return
		}
		if n.Kind != yaml.MappingNode {
			r.atLine(n.Line, path, "expected a mapping, got %s", describe(n))
			return
		}
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			if line, dup := first[k.Value]; dup {
				r.atLine(k.Line, p, "is set twice (first on line %d)", line)
				continue
			}
			first[k.Value] = k.Line
			f := lookup(fields, k.Value)
			if f == nil {
				r.atLine(k.Line, p, "unknown field (valid: %s)", names(fields))
				continue
			}
			r.pos[p] = k.Line
			f.bind(r, p, v)
		}
	}
}

func lookup(fields []field, name string) *field {
	for i := range fields {
		if fields[i].name == name {
			return &fields[i]
		}
	}
	return nil
}

func names(fields []field) string {
	ns := make([]string, len(fields))
	for i, f := range fields {
		ns[i] = f.name
	}
	return strings.Join(ns, ", ")
}

// list decodes a sequence: item is given each element's node (for its line)
// and returns the binder that decodes it.
func list(item func(i int, n *yaml.Node) binder) binder {
	return func(r *report, path string, n *yaml.Node) {
		n = deref(n)
		if isNull(n) {
			return
		}
		if n.Kind != yaml.SequenceNode {
			r.atLine(n.Line, path, "expected a list, got %s", describe(n))
			return
		}
		for i, c := range n.Content {
			p := index(path, i)
			r.pos[p] = c.Line
			item(i, c)(r, p, c)
		}
	}
}

// scalar returns the scalar to decode, or nil when the value is null (left
// unset) or not a scalar (reported).
func scalar(r *report, path string, n *yaml.Node, want string) *yaml.Node {
	n = deref(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		r.atLine(n.Line, path, "expected %s, got %s", want, describe(n))
		return nil
	}
	return n
}

// str accepts any scalar but a boolean, so that an unquoted number such as a
// password of digits is taken as written.
func str(dst *string) binder {
	return func(r *report, path string, n *yaml.Node) {
		if n = scalar(r, path, n, "a string"); n == nil {
			return
		}
		if n.ShortTag() == "!!bool" {
			r.atLine(n.Line, path, "expected a string, got %s (quote it to mean the text)", n.Value)
			return
		}
		*dst = n.Value
	}
}

func strs(dst *[]string) binder {
	return list(func(i int, n *yaml.Node) binder {
		*dst = append(*dst, "")
		return str(&(*dst)[len(*dst)-1])
	})
}

func boolean(dst *bool) binder {
	return func(r *report, path string, n *yaml.Node) {
		if n = scalar(r, path, n, "true or false"); n == nil {
			return
		}
		v, err := strconv.ParseBool(n.Value)
		if n.ShortTag() != "!!bool" || err != nil {
			r.atLine(n.Line, path, "expected true or false, got %s", describe(n))
			return
		}
		*dst = v
	}
}

func integer(dst *int) binder {
	return func(r *report, path string, n *yaml.Node) {
		if n = scalar(r, path, n, "an integer"); n == nil {
			return
		}
		v, err := strconv.ParseInt(n.Value, 0, 0)
		if n.ShortTag() != "!!int" || err != nil {
			r.atLine(n.Line, path, "expected an integer, got %s", describe(n))
			return
		}
		*dst = int(v)
	}
}

func number(dst *float64) binder {
	return func(r *report, path string, n *yaml.Node) {
		if n = scalar(r, path, n, "a number"); n == nil {
			return
		}
		tag := n.ShortTag()
		v, err := strconv.ParseFloat(n.Value, 64)
		if (tag != "!!int" && tag != "!!float") || err != nil {
			r.atLine(n.Line, path, "expected a number, got %s", describe(n))
			return
		}
		*dst = v
	}
}

// qos reports an out-of-range value here, with the value as written.
func qos(dst *byte) binder {
	return func(r *report, path string, n *yaml.Node) {
		if n = scalar(r, path, n, "a QoS"); n == nil {
			return
		}
		v, err := strconv.ParseInt(n.Value, 0, 0)
		if n.ShortTag() != "!!int" || err != nil || v < 0 || v > 2 {
			r.atLine(n.Line, path, "expected a QoS of 0, 1 or 2, got %s", describe(n))
			return
		}
		*dst = byte(v)
	}
}

func duration(dst *time.Duration) binder {
	return func(r *report, path string, n *yaml.Node) {
		if n = scalar(r, path, n, "a duration"); n == nil {
			return
		}
		v, err := time.ParseDuration(n.Value)
		if err != nil {
			r.atLine(n.Line, path, "%s is not a duration (write it like 200ms, 5s or 1m)", describe(n))
			return
		}
		*dst = v
	}
}

func size(dst *int64) binder {
	return func(r *report, path string, n *yaml.Node) {
		if n = scalar(r, path, n, "a size"); n == nil {
			return
		}
		v, err := parseSize(n.Value)
		if err != nil {
			r.atLine(n.Line, path, "%s is not a size (write bytes, or a number with B, KB, MB, GB, KiB, MiB or GiB)", describe(n))
			return
		}
		*dst = v
	}
}

func sizeInt(dst *int) binder {
	return func(r *report, path string, n *yaml.Node) {
		var v int64
		size(&v)(r, path, n)
		*dst = int(v)
	}
}
