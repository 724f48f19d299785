package archtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The module's packages import what the table in docs/architecture.md allows,
// and every package has a row.
func TestImportsFollowTheRulesOfArchitectureMD(t *testing.T) {
	root := filepath.Join("..", "..")
	f, err := os.Open(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules, err := readRules(f)
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	pkgs, err := loadGraph(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range check(rules, pkgs) {
		t.Error(b)
	}
}

// The checker itself: a forbidden dependency, an import the row does not allow,
// a package without a row and a stale pattern are each reported.
func TestCheckReportsEachKindOfBrokenRule(t *testing.T) {
	table := "intro\n\n" + rulesHeader + `
| --- | --- | --- |
| ` + "`pure`" + ` | none | ` + "`example.com/io/...`, `testing/...`" + ` |
| ` + "`app`" + ` | any | ` + "`testing/...`" + ` |
| ` + "`testing/...`" + ` | any | none |
| ` + "`gone`" + ` | none | none |

after
`
	rules, err := readRules(strings.NewReader(table))
	if err != nil {
		t.Fatal(err)
	}
	m := func(s string) string { return module + "/" + s }
	pkgs := []pkg{
		{ImportPath: m("pure"), Imports: []string{m("app")}, Deps: []string{"example.com/io/file", m("app"), m("testing/clock")}},
		{ImportPath: m("app"), Imports: []string{m("testing/clock")}, Deps: []string{m("testing/clock")}},
		{ImportPath: m("testing/clock")},
		{ImportPath: m("stray")},
	}
	got := strings.Join(check(rules, pkgs), "\n")
	for _, want := range []string{
		"pure imports app, which its row does not allow",
		"pure depends on example.com/io/file, which its row forbids",
		"pure depends on testing/clock, which its row forbids",
		"app depends on testing/clock, which its row forbids",
		"stray: no row of the table names it",
		"row gone: gone names no package of the module",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "testing/clock:") {
		t.Errorf("testing/clock broke no rule:\n%s", got)
	}
}
