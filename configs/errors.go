package configs

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Error is one problem in a config file.
type Error struct {
	File   string
	Line   int    // 0 when the problem is not tied to a line (an unreadable file)
	Field  string // dotted path such as windows[0].size; "" for syntax errors
	Reason string
}

// Error formats the problem as file:line: field: reason.
func (e Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Errors is every problem found in a set of config files, sorted by file and
// line. Load returns it as its error.
type Errors []Error

// Error prints one problem per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// err returns es as an error, or nil when it is empty, so that callers never
// see a non-nil error holding no problems.
func (es Errors) err() error {
	if len(es) == 0 {
		return nil
	}
	slices.SortStableFunc(es, func(a, b Error) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return es
}

// positions maps a field's dotted path to the line it was written on.
type positions map[string]int

// line returns the line of path, or of its closest written parent, so that a
// missing field is reported where its enclosing mapping starts.
func (p positions) line(path string) int {
	for path != "" {
		if l, ok := p[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return p[""]
}

// newPositions starts a file's positions; fields missing from the top level
// are reported on line 1.
func newPositions() positions { return positions{"": 1} }

// has reports whether path was written in the file.
func (p positions) has(path string) bool {
	_, ok := p[path]
	return ok
}

// report collects the problems of one file. It keeps only the first problem
// per field, so that a value that failed to decode is not reported again by
// validation once a default has replaced it.
type report struct {
	file string
	pos  positions
	errs *Errors
}

func newReport(file string, pos positions, errs *Errors) *report {
	return &report{file: file, pos: pos, errs: errs}
}

// at records a problem on the line the field was written on.
func (r *report) at(field string, format string, args ...any) {
	r.atLine(r.pos.line(field), field, format, args...)
}

func (r *report) atLine(line int, field string, format string, args ...any) {
	if field != "" && slices.ContainsFunc(*r.errs, func(e Error) bool { return e.File == r.file && e.Field == field }) {
		return
	}
	*r.errs = append(*r.errs, Error{File: r.file, Line: line, Field: field, Reason: fmt.Sprintf(format, args...)})
}

// join builds a dotted path.
func join(parent, field string) string {
	if parent == "" {
		return field
	}
	return parent + "." + field
}

// index builds the path of a list element.
func index(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}
