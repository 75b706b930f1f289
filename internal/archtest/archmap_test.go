package archtest

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// codeSpan is a Markdown code span without spaces (a path or a name).
var codeSpan = regexp.MustCompile("`([^`\\s]+)`")

// repoDirs are the repository's top-level folders whose paths the map
// names.
var repoDirs = []string{"api", "bench", "cmd", "docs", "encoders", "internal", "migrations", "scripts", "server", "static", "wasm", "web"}

// checkMap returns the packages of allowed that doc does not name (in a
// code span: the whole path, the path without "server/", or its last
// element where the table lists a family) and the repository paths in
// doc's code spans that are not there by exists (a "/..." suffix is the
// folder; a span with "*" is a glob that must match; "NNNN" marks a
// template and is not checked).
func checkMap(doc string, allowed map[string][]string, exists func(string) bool) []string {
	spans := map[string]bool{}
	for _, m := range codeSpan.FindAllStringSubmatch(doc, -1) {
		spans[m[1]] = true
	}
	var bad []string
	for pkg := range allowed {
		if !spans[pkg] && !spans[pkg+"/"] && !spans[strings.TrimPrefix(pkg, "server/")] && !spans[path.Base(pkg)] {
			bad = append(bad, "ARCHITECTURE.md does not name the package "+pkg+" (a row of allowedImports): add it to the package table")
		}
	}
	for span := range spans {
		top, _, _ := strings.Cut(span, "/")
		if !strings.Contains(span, "/") || !slices.Contains(repoDirs, top) || strings.Contains(span, "NNNN") {
			continue
		}
		p := strings.TrimSuffix(strings.TrimSuffix(span, "/..."), "/")
		if !exists(p) {
			bad = append(bad, "ARCHITECTURE.md names "+span+", which is not in the repository: correct the path")
		}
	}
	sort.Strings(bad)
	return bad
}

// TestArchitectureMap: ARCHITECTURE.md names every package that
// allowedImports has a row for, and every repository path it names
// exists, so the map moves with the code.
func TestArchitectureMap(t *testing.T) {
	root := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool {
		if strings.Contains(p, "*") {
			m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(p)))
			return err == nil && len(m) > 0
		}
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil
	}
	for _, v := range checkMap(string(doc), allowedImports, exists) {
		t.Error(v)
	}
}

// TestCheckMapCatchesViolations: a package the map does not name and a
// path that does not exist each fail; short names, "/..." folders and
// templates pass.
func TestCheckMapCatchesViolations(t *testing.T) {
	allowed := map[string][]string{"server/store": nil, "server/agreement": nil, "server/devtools/bench": nil, "cmd/boolpool": nil}
	files := map[string]bool{"server/store": true, "server/devtools": true, "server/app/app.go": true, "cmd/boolpool": true}
	exists := func(p string) bool { return files[p] }
	const clean = "| `server/store` | … | `agreement` … `server/devtools/...` (`bench`) `cmd/boolpool` calls `server/app/app.go`; `migrations/NNNN_name.sql`; `routes.go` |"
	if got := checkMap(clean, allowed, exists); len(got) > 0 {
		t.Errorf("violations in a true map: %q", got)
	}
	tests := []struct {
		name, doc, want string
	}{
		{"a package the map leaves out", strings.Replace(clean, "`agreement`", "agreement", 1), "does not name the package server/agreement"},
		{"a path that moved", clean + " `server/app/wiring.go`", "names server/app/wiring.go, which is not in the repository"},
		{"a folder that moved", clean + " `server/gone/`", "names server/gone/, which is not"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkMap(tt.doc, allowed, exists)
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("violations %q, want one with %q", got, tt.want)
			}
		})
	}
}
