// Package docs holds the user and contributor pages; this test keeps their links working.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	fence   = regexp.MustCompile("(?ms)^```.*?^```")
	code    = regexp.MustCompile("`[^`\n]*`")
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	notSlug = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// The README and the pages under docs/ link each other, headings and source files by
// relative paths; a section moved or renamed breaks them silently on GitHub. Every
// relative link must name a file or directory that exists and, for a Markdown page,
// a heading it has (anchors as GitHub makes them).
func TestRelativeLinksInTheDocsResolve(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../README.md")
	anchors := map[string]map[string]bool{}
	for _, page := range pages {
		text := readPage(t, page)
		for _, m := range link.FindAllStringSubmatch(code.ReplaceAllString(fence.ReplaceAllString(text, ""), ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), path)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %s: %v", page, target, err)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			if anchors[file] == nil {
				anchors[file] = headingAnchors(readPage(t, file))
			}
			if !anchors[file][anchor] {
				t.Errorf("%s: link %s: %s has no heading with anchor #%s", page, target, file, anchor)
			}
		}
	}
}

func readPage(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// headingAnchors returns the anchors GitHub gives a page's headings: lower case,
// punctuation dropped, spaces as hyphens, a repeated one numbered from 1.
func headingAnchors(text string) map[string]bool {
	seen := map[string]int{}
	anchors := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(fence.ReplaceAllString(text, ""), -1) {
		slug := strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}
