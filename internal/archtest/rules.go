package archtest

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// module is the import path every pattern without a domain is relative to.
const module = "github.com/edged/edged"

// rulesHeader is the header row of the table the rules are read from.
const rulesHeader = "| package | may import (edged packages) | must not import |"

// rule is one row of the table: the packages a pattern names may import the
// edged packages of may (all of them if any), and depend, directly or not, on
// none of mustNot.
type rule struct {
	pattern string
	any     bool
	may     []string
	mustNot []string
}

// readRules parses the rules table of r (markdown): cells hold comma-separated
// patterns in backquotes, or "any" or "none". A pattern is an import path,
// relative to the module unless its first element is a domain, and ending in
// "/..." it also names the packages below.
func readRules(r io.Reader) ([]rule, error) {
	var rules []rule
	in := false
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == rulesHeader:
			in = true
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			if len(rules) == 0 {
				return nil, fmt.Errorf("line %d: the rules table has no rows", n)
			}
			return rules, nil
		case strings.HasPrefix(line, "| ---") || strings.HasPrefix(line, "|---"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			return nil, fmt.Errorf("line %d: %d cells, want 3: %s", n, len(cells), line)
		}
		pkg := patterns(cells[0])
		if len(pkg) != 1 {
			return nil, fmt.Errorf("line %d: the first cell names %d packages, want one pattern", n, len(pkg))
		}
		ru := rule{pattern: pkg[0], mustNot: patterns(cells[2])}
		if strings.TrimSpace(cells[1]) == "any" {
			ru.any = true
		} else {
			ru.may = patterns(cells[1])
		}
		rules = append(rules, ru)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("no table with the header %q", rulesHeader)
	}
	return rules, nil
}

// patterns is the backquoted patterns of a cell, as full import paths.
func patterns(cell string) []string {
	var ps []string
	for _, p := range strings.Split(cell, ",") {
		p = strings.Trim(strings.TrimSpace(p), "`")
		if p == "" || p == "none" {
			continue
		}
		if first, _, _ := strings.Cut(p, "/"); !strings.Contains(first, ".") {
			p = module + "/" + p
		}
		ps = append(ps, p)
	}
	return ps
}

// matches reports whether the import path pkg is one that pattern names.
func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// ruleFor is the rule of pkg: of the rows whose pattern names it, the one with
// the longest pattern (testing/oracle before testing/...).
func ruleFor(rules []rule, pkg string) (rule, bool) {
	var best rule
	found := false
	for _, r := range rules {
		if matches(r.pattern, pkg) && (!found || len(r.pattern) > len(best.pattern)) {
			best, found = r, true
		}
	}
	return best, found
}
