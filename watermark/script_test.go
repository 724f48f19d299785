package watermark

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output in testdata/*.txt with what the code does now")

// TestScripts runs the scripts in testdata/*.txt, in the manner of etcd-io/raft's
// datadriven tests. A script is a series of blocks separated by blank lines;
// a block is one or more commands, a line "----", and the output the commands
// must print. Lines starting with # are comments. After a deliberate change,
// go test ./watermark -run TestScripts -rewrite regenerates the outputs; review
// the diff.
//
// Commands (times in ms; numbers may use _ separators; "min" is Min):
//
//	generator [strategy=bounded] [bound=B] [idle=T] [mode=advance] [skew=S]
//	observe TS at=NOW        prints the verdict
//	mark WM at=NOW
//	tick at=NOW              prints the status and whether it changed
//	state                    prints the GeneratorState
//	restart at=NOW           State, then Restore into a new generator
//	valve                    a new valve
//	update INPUT WM [idle]   prints the valve's status and whether it changed
//	inputs                   prints the valve's State, one input a line
//	valve-restart            State, then Restore into a new valve; prints its status
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
	s := &scriptState{}
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

type scriptState struct {
	cfg Config
	g   *Generator
	v   *Valve
}

func (s *scriptState) run(line string) ([]string, error) {
	fields := strings.Fields(line)
	cmd, pos, kv := fields[0], []string{}, map[string]string{}
	for _, f := range fields[1:] {
		if k, v, ok := strings.Cut(f, "="); ok {
			kv[k] = v
		} else {
			pos = append(pos, f)
		}
	}
	var numErr error
	num := func(text string) int64 {
		if text == "min" {
			return Min
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(text, "_", ""), 10, 64)
		if err != nil && numErr == nil {
			numErr = fmt.Errorf("%q is not a number of ms", text)
		}
		return n
	}
	needs := map[string]string{"observe": "generator", "mark": "generator", "tick": "generator", "state": "generator",
		"restart": "generator", "update": "valve", "inputs": "valve", "valve-restart": "valve"}
	if n := needs[cmd]; (n == "generator" && s.g == nil) || (n == "valve" && s.v == nil) {
		return nil, fmt.Errorf("%s needs a %s command first", cmd, n)
	}
	res, err := s.exec(cmd, pos, kv, num)
	if err == nil {
		err = numErr
	}
	return res, err
}

func (s *scriptState) exec(cmd string, pos []string, kv map[string]string, num func(string) int64) ([]string, error) {
	at := func() int64 { return num(kv["at"]) }
	arg := func(i int) int64 {
		if i >= len(pos) {
			return num("")
		}
		return num(pos[i])
	}
	changed := func(c bool) string {
		if c {
			return "changed"
		}
		return "unchanged"
	}
	switch cmd {
	case "generator":
		cfg := Config{}
		var err error
		if v, ok := kv["strategy"]; ok {
			if cfg.Strategy, err = ParseStrategy(v); err != nil {
				return nil, err
			}
		}
		if v, ok := kv["mode"]; ok {
			if cfg.IdleMode, err = ParseIdleMode(v); err != nil {
				return nil, err
			}
		}
		for key, dst := range map[string]*int64{"bound": &cfg.MaxOutOfOrderness, "idle": &cfg.IdleTimeout, "skew": &cfg.MaxFutureSkew} {
			if v, ok := kv[key]; ok {
				*dst = num(v)
			}
		}
		s.cfg, s.g = cfg, NewGenerator(cfg)
		return []string{fmt.Sprintf("%v bound=%d idle=%d %v skew=%d", cfg.Strategy, cfg.MaxOutOfOrderness, cfg.IdleTimeout, cfg.IdleMode, cfg.MaxFutureSkew)}, nil
	case "observe":
		return []string{s.g.Observe(arg(0), at()).String()}, nil
	case "mark":
		s.g.Mark(arg(0), at())
		return []string{"ok"}, nil
	case "tick":
		st, c := s.g.Tick(at())
		return []string{st.String() + " " + changed(c)}, nil
	case "state":
		st := s.g.State()
		return []string{fmt.Sprintf("max=%s arrival=%d wm=%s seen=%v idle=%v",
			formatWatermark(st.Max), st.LastArrival, formatWatermark(st.Watermark), st.Seen, st.Idle)}, nil
	case "restart":
		st := s.g.State()
		s.g = NewGenerator(s.cfg)
		s.g.Restore(st, at())
		return []string{"ok"}, nil
	case "valve":
		s.v = NewValve()
		return []string{s.v.Status().String()}, nil
	case "update":
		if len(pos) < 2 {
			return nil, fmt.Errorf("update needs an input and a watermark")
		}
		st, c := s.v.Update(pos[0], Status{Watermark: num(pos[1]), Idle: len(pos) > 2 && pos[2] == "idle"})
		return []string{st.String() + " " + changed(c)}, nil
	case "inputs":
		var res []string
		for _, in := range s.v.State() {
			st := Status{Watermark: in.Watermark, Idle: in.Idle}
			aligned := "unaligned"
			if in.Aligned {
				aligned = "aligned"
			}
			res = append(res, fmt.Sprintf("%s %v %s", in.Input, st, aligned))
		}
		return res, nil
	case "valve-restart":
		st := s.v.State()
		s.v = NewValve()
		s.v.Restore(st)
		return []string{s.v.Status().String()}, nil
	}
	return nil, fmt.Errorf("unknown command %q", cmd)
}
