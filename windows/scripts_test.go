package windows_test

import (
	"cmp"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/edged/edged/testing/oracle"
	"github.com/edged/edged/windows"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output in testdata/*.txt with what the code does now")

// TestScripts runs the scripts in testdata/*.txt, in the manner of etcd-io/raft's
// datadriven tests (and watermark/'s). A script is a series of blocks separated
// by blank lines; a block is one or more commands, a line "----", and the output
// the commands must print. Lines starting with # are comments. After a
// deliberate change, go test ./windows -run TestScripts -rewrite regenerates the
// outputs; review the diff.
//
// The operator aggregates count and sum(v). Everything it emits goes to a
// consumer table (the consumer rule, oracle.Table), and what it says to persist
// to a store, as a window actor does. Commands (times in ms):
//
//	operator session=GAP|tumbling=SIZE [lateness=L] [discarding]
//	record KEY TS [V]   prints the verdict and the output
//	advance WM          prints the output
//	restart             restores a new operator from the store
//	store               prints what the store holds: windows and tombs
//	table               prints the consumer's live rows
//
// Output lines: fire, retract, late and dropped as the operator's results; purge
// KEY WINDOW for a window that went, tomb KEY WINDOW next=N for a tomb left
// (the start's next row carries revision N at least), untomb KEY WINDOW for a
// tomb gone (revived or no longer needed).
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) { runScript(t, file) })
	}
}

func runScript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var out strings.Builder
	s := &scriptOperator{}
	for i := 0; i < len(lines); {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			i++
			continue
		}
		start := i + 1
		var cmds []string
		for ; i < len(lines) && lines[i] != "----"; i++ {
			cmds = append(cmds, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: block has no ---- line", file, start)
		}
		i++
		var want []string
		for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			want = append(want, lines[i])
		}
		var got []string
		for n, cmd := range cmds {
			res, err := s.run(cmd)
			if err != nil {
				t.Fatalf("%s:%d: %s: %v", file, start+n, cmd, err)
			}
			got = append(got, res...)
		}
		if !*rewrite && strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:%d:\n%s\ngot:\n%s\nwant:\n%s", file, start, strings.Join(cmds, "\n"), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		out.WriteString(strings.Join(cmds, "\n") + "\n----\n")
		for _, g := range got {
			out.WriteString(g + "\n")
		}
	}
	if *rewrite {
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// scriptOperator is a script's operator with its store and consumer table.
type scriptOperator struct {
	cfg   windows.OperatorConfig
	op    *windows.Operator
	store map[storeKey]scriptEntry
	tombs map[windows.Ref]bool // for renderTombs
	table *oracle.Table
}

type scriptEntry struct {
	w     windows.Window
	state []byte
}

func (s *scriptOperator) run(line string) ([]string, error) {
	fields := strings.Fields(line)
	cmd, pos, kv := fields[0], []string{}, map[string]string{}
	for _, f := range fields[1:] {
		if k, v, ok := strings.Cut(f, "="); ok {
			kv[k] = v
		} else {
			pos = append(pos, f)
		}
	}
	if cmd != "operator" && s.op == nil {
		return nil, fmt.Errorf("%s needs an operator command first", cmd)
	}
	num := func(text string) (int64, error) { return strconv.ParseInt(strings.ReplaceAll(text, "_", ""), 10, 64) }
	switch cmd {
	case "operator":
		return s.newOperator(kv, pos)
	case "record":
		if len(pos) < 2 {
			return nil, fmt.Errorf("record needs a key and a timestamp")
		}
		ts, err := num(pos[1])
		if err != nil {
			return nil, err
		}
		v := 1.0
		if len(pos) > 2 {
			if v, err = strconv.ParseFloat(pos[2], 64); err != nil {
				return nil, err
			}
		}
		var out windows.Output
		verdict := s.op.OnRecord(pos[0], windows.Record{TS: ts, Values: []windows.Value{windows.NumberValue(v)}}, &out)
		return append([]string{verdict.String()}, s.apply(&out)...), nil
	case "advance":
		if len(pos) < 1 {
			return nil, fmt.Errorf("advance needs a watermark")
		}
		wm, err := num(pos[0])
		if err != nil {
			return nil, err
		}
		var out windows.Output
		s.op.Advance(wm, &out)
		return s.apply(&out), nil
	case "restart":
		wm := s.op.Watermark()
		s.op = windows.NewOperator(s.cfg)
		for _, k := range s.keys() {
			e := s.store[k]
			if err := s.op.Restore(k.key, e.w, e.state); err != nil {
				return nil, err
			}
		}
		s.op.SetWatermark(wm)
		return []string{"ok"}, nil
	case "store":
		var res []string
		for _, k := range s.keys() {
			e := s.store[k]
			if next, ok := s.op.Tomb(k.key, e.w); ok {
				res = append(res, fmt.Sprintf("tomb %s %v next=%d", k.key, e.w, next))
				continue
			}
			values, rev, _ := s.op.Peek(k.key, e.w)
			res = append(res, fmt.Sprintf("window %s %v next=%d %s", k.key, e.w, rev, showValues(values)))
		}
		return res, nil
	case "table":
		rows := s.table.Rows()
		var res []string
		for _, ref := range slices.SortedFunc(maps.Keys(rows), func(a, b windows.Ref) int {
			return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Window.Start, b.Window.Start))
		}) {
			rev, _ := s.table.Revision(ref.Key, ref.Window.Start)
			res = append(res, fmt.Sprintf("row %s %v r%d %s", ref.Key, ref.Window, rev, showValues(rows[ref])))
		}
		return res, nil
	}
	return nil, fmt.Errorf("unknown command %q", cmd)
}

func (s *scriptOperator) newOperator(kv map[string]string, pos []string) ([]string, error) {
	aggs, err := windows.ParseAggregates([]string{"count", "sum(v)"})
	if err != nil {
		return nil, err
	}
	cfg := windows.OperatorConfig{Aggregates: aggs, Discarding: slices.Contains(pos, "discarding")}
	if v, ok := kv["lateness"]; ok {
		if cfg.AllowedLateness, err = strconv.ParseInt(v, 10, 64); err != nil {
			return nil, err
		}
	}
	var size int64
	switch {
	case kv["session"] != "":
		size, err = strconv.ParseInt(kv["session"], 10, 64)
		cfg.Assigner = windows.Session(size)
	case kv["tumbling"] != "":
		size, err = strconv.ParseInt(kv["tumbling"], 10, 64)
		cfg.Assigner = windows.Tumbling(size, 0)
	default:
		return nil, fmt.Errorf("operator needs session=GAP or tumbling=SIZE")
	}
	if err != nil {
		return nil, err
	}
	s.cfg, s.op, s.store, s.tombs, s.table = cfg, windows.NewOperator(cfg), map[storeKey]scriptEntry{}, map[windows.Ref]bool{}, oracle.NewTable()
	return []string{"ok"}, nil
}

// apply renders out, passes its results to the table and stores what it says
// changed: delete every purged start, then write every updated window or tomb
// the operator still has.
func (s *scriptOperator) apply(out *windows.Output) []string {
	res := renderTombs(s.op, out, s.tombs)
	for _, r := range out.Results {
		if err := s.table.Apply(r); err != nil {
			res = append(res, "table refuses: "+err.Error())
		}
	}
	for _, p := range out.Purged {
		delete(s.store, storeKey{p.Key, p.Window.Start})
	}
	for _, u := range out.Updated {
		if state, ok := s.op.AppendState(nil, u.Key, u.Window); ok {
			s.store[storeKey{u.Key, u.Window.Start}] = scriptEntry{w: u.Window, state: state}
		}
	}
	return res
}

func (s *scriptOperator) keys() []storeKey {
	return slices.SortedFunc(maps.Keys(s.store), func(a, b storeKey) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.start, b.start))
	})
}

func showValues(vals []windows.NamedValue) string {
	var parts []string
	for _, v := range vals {
		parts = append(parts, fmt.Sprintf("%s=%s", v.Name, num(v.Value)))
	}
	return strings.Join(parts, " ")
}
