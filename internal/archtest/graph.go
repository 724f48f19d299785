package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// pkg is what go list says of one package of the module: its direct imports and
// every package it depends on, test files left out.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// loadGraph lists the module's packages from dir, the module root.
func loadGraph(dir string) ([]pkg, error) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		p.ImportPath = plain(p.ImportPath)
		for i := range p.Imports {
			p.Imports[i] = plain(p.Imports[i])
		}
		for i := range p.Deps {
			p.Deps[i] = plain(p.Deps[i])
		}
		pkgs = append(pkgs, p)
	}
}

// plain is path without the variant go list adds to the packages a main package
// with a profile (default.pgo) builds: "actors [github.com/edged/edged/cmd/edged]".
func plain(path string) string {
	p, _, _ := strings.Cut(path, " [")
	return p
}

// check is the broken rules of pkgs, one line each.
func check(rules []rule, pkgs []pkg) []string {
	var broken []string
	listed := map[string]bool{}
	for _, p := range pkgs {
		listed[p.ImportPath] = true
	}
	for _, p := range pkgs {
		r, ok := ruleFor(rules, p.ImportPath)
		if !ok {
			broken = append(broken, fmt.Sprintf("%s: no row of the table names it", short(p.ImportPath)))
			continue
		}
		if !r.any {
			for _, imp := range p.Imports {
				if matches(module+"/...", imp) && !matchesAny(r.may, imp) {
					broken = append(broken, fmt.Sprintf("%s imports %s, which its row does not allow", short(p.ImportPath), short(imp)))
				}
			}
		}
		for _, dep := range p.Deps {
			if matchesAny(r.mustNot, dep) {
				broken = append(broken, fmt.Sprintf("%s depends on %s, which its row forbids", short(p.ImportPath), short(dep)))
			}
		}
	}
	// A row, or a pattern of the module, that names no package is a table gone stale.
	for _, r := range rules {
		for _, pat := range append(append([]string{r.pattern}, r.may...), r.mustNot...) {
			if matches(module+"/...", pat) && !namesAny(pat, listed) {
				broken = append(broken, fmt.Sprintf("row %s: %s names no package of the module", short(r.pattern), short(pat)))
			}
		}
	}
	return broken
}

func matchesAny(patterns []string, path string) bool {
	for _, p := range patterns {
		if matches(p, path) {
			return true
		}
	}
	return false
}

func namesAny(pattern string, listed map[string]bool) bool {
	for path := range listed {
		if matches(pattern, path) {
			return true
		}
	}
	return false
}

// short is path without the module's prefix.
func short(path string) string {
	return strings.TrimPrefix(path, module+"/")
}
