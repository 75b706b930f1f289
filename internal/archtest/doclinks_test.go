package archtest

import (
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinks checks every relative link of the Markdown pages at the
// repository root, in docs/ and the packages' README.md files: each `](path)` or `](path#anchor)` names a
// file that exists, and an anchor into a Markdown page names one of its
// headings (as GitHub makes anchors). It also checks that the README links
// every page of docs/, so no reference page is unreachable from the door.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("docs/ holds no Markdown page")
	}
	readmes, err := filepath.Glob(filepath.Join(root, "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(append(pages, docs...), readmes...)
	anchors := map[string]map[string]bool{} // page → its heading anchors, read on demand
	anchorsOf := func(page string) (map[string]bool, error) {
		if a, ok := anchors[page]; ok {
			return a, nil
		}
		b, err := os.ReadFile(page)
		if err != nil {
			return nil, err
		}
		a := headingAnchors(string(b))
		anchors[page] = a
		return a, nil
	}
	linked := map[string]bool{} // pages the README links
	total := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, l := range relativeLinks(string(b)) {
			total++
			path, anchor, _ := strings.Cut(l.target, "#")
			target := page
			if path != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s:%d: link %q: %s does not exist", rel, l.line, l.target, path)
				continue
			}
			if rel == "README.md" {
				linked[target] = true
			}
			if anchor == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			a, err := anchorsOf(target)
			if err != nil {
				t.Fatal(err)
			}
			if !a[anchor] {
				t.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", rel, l.line, l.target, filepath.Base(target), anchor)
			}
		}
	}
	if total < len(docs) {
		t.Errorf("found %d relative links in %d pages; the README alone should link the %d pages of docs/", total, len(pages), len(docs))
	}
	for _, d := range docs {
		if !linked[d] {
			t.Errorf("README.md does not link docs/%s", filepath.Base(d))
		}
	}
}

type mdLink struct {
	line   int
	target string
}

var (
	linkRE     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	schemeRE   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// proseLines yields a Markdown page's lines (with their index from 0)
// outside fenced code blocks.
func proseLines(md string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		fence := false
		for i, l := range strings.Split(md, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fence = !fence
				continue
			}
			if !fence && !yield(i, l) {
				return
			}
		}
	}
}

// relativeLinks returns the link targets of a Markdown page that are not
// URLs, leaving out fenced code blocks and code spans.
func relativeLinks(md string) []mdLink {
	var out []mdLink
	for i, l := range proseLines(md) {
		for _, m := range linkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(l, ""), -1) {
			if schemeRE.MatchString(m[1]) {
				continue
			}
			out = append(out, mdLink{line: i + 1, target: m[1]})
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives a page's headings.
func headingAnchors(md string) map[string]bool {
	a := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(md) {
		text, ok := headingText(l)
		if !ok {
			continue
		}
		s := slug(text)
		if n := seen[s]; n > 0 {
			a[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			a[s] = true
		}
		seen[s]++
	}
	return a
}

// headingText returns the text of an ATX heading line ("## Text").
func headingText(line string) (string, bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(line) || line[n] != ' ' {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(line[n:], "#")), true
}

// slug makes a heading's anchor as GitHub does: lower case, letters,
// digits, '-' and '_' kept, spaces turned into '-', everything else dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Consensus options (majority, Dawid–Skene)", "consensus-options-majority-dawidskene"},
		{"Reusability and ranking stability (`eval reusability`, `eval stability`)", "reusability-and-ranking-stability-eval-reusability-eval-stability"},
		{"What the scripts install (idempotent, fast when present)", "what-the-scripts-install-idempotent-fast-when-present"},
		{"Live `cal` pools (the product)", "live-cal-pools-the-product"},
	} {
		if got := slug(c.heading); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
	got := headingAnchors("# A\n```\n# not a heading\n```\n## A\n#nope\n### B c\n")
	want := []string{"a", "a-1", "b-c"}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, want) {
		t.Errorf("headingAnchors = %v, want %v", keys, want)
	}
}
