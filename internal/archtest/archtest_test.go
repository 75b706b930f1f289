package archtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pkg is what the rules read of one package (go list -json). Imports and
// Deps come from its non-test files only.
type pkg struct {
	ImportPath string
	Imports    []string // direct imports
	Deps       []string // every package it depends on, transitively
}

// The rules. httpapi is the request path; devtools is the bench, load and
// synthetic-data code; a fixture package is one of the module's packages
// whose name ends in "test" (storetest, judgingtest).
const (
	httpapi  = "server/httpapi"
	encoders = "encoders"
	devtools = "server/devtools"
	appRoot  = "server/app" // the composition root
	// The server binary, and the lab binary that alone links the dev
	// tooling (benchmarks, load generator, synthetic data).
	serverCmd = "cmd/boolpool"
	labCmd    = "cmd/boolpool-lab"
	// The constraint-pooling simulations, apart from the live pools.
	atomSim = "server/atomsim"
)

// depRule forbids a package (module-relative path) to depend, directly or
// through others, on any of the listed packages or those below them
// (module-relative, or a full import path outside the module).
type depRule struct {
	from      string
	forbidden []string
	why       string
}

// depRules is the layering of ARCHITECTURE.md: the HTTP layer reaches
// neither the encoders (cgo) nor the dev tooling, and the judgment flow
// runs one way, judging → consensus → live/export, wired by the
// composition root (server/app) rather than by imports.
var depRules = []depRule{
	{httpapi, []string{encoders, devtools, atomSim, "github.com/yalue/onnxruntime_go"}, "the request path links neither the encoders, the dev tooling nor the research simulations"},
	{"server/judging", []string{"server/consensus", "server/live", "server/export", httpapi}, "the judgment flow runs one way: judging → consensus → live/export"},
	{"server/consensus", []string{"server/live", "server/export", httpapi}, "the judgment flow runs one way: consensus → live/export"},
	{"server/export", []string{"server/live", httpapi}, "export reads the store, not the live state"},
	{"server/live", []string{"server/export", httpapi}, "live subscribes to consensus; it does not export"},
	{appRoot, []string{devtools, atomSim}, "the composition root builds the product, not the dev tooling or the research simulations"},
	{serverCmd, []string{devtools}, "the server binary links no dev tooling: the benchmarks and load tools are " + labCmd + "'s"},
}

// within reports whether path is dir or a package below it.
func within(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// check returns every broken rule in pkgs, a module named module.
func check(module string, pkgs []pkg) []string {
	rel := func(p string) (string, bool) {
		if p == module {
			return "", true
		}
		r, ok := strings.CutPrefix(p, module+"/")
		return r, ok
	}
	isFixture := func(p string) bool {
		r, ok := rel(p)
		return ok && strings.HasSuffix(r[strings.LastIndex(r, "/")+1:], "test")
	}
	var bad []string
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		for _, rule := range depRules {
			if from != rule.from {
				continue
			}
			for _, d := range p.Deps {
				r, inModule := rel(d)
				for _, f := range rule.forbidden {
					if (inModule && within(r, f)) || within(d, f) {
						bad = append(bad, fmt.Sprintf("%s depends on %s (%s)", p.ImportPath, d, rule.why))
					}
				}
			}
		}
		for _, imp := range p.Imports {
			r, ok := rel(imp)
			if !ok {
				continue
			}
			if within(r, devtools) && !within(from, devtools) && from != labCmd {
				bad = append(bad, fmt.Sprintf("%s imports %s (only %s and %s/ may import the dev tooling)", p.ImportPath, imp, labCmd, devtools))
			}
			if within(r, appRoot) && !within(from, "cmd") && !within(from, appRoot) {
				bad = append(bad, fmt.Sprintf("%s imports %s (only cmd/ builds the composition root; tests may)", p.ImportPath, imp))
			}
			if isFixture(imp) && !isFixture(p.ImportPath) {
				bad = append(bad, fmt.Sprintf("%s imports the test fixture %s from a non-test file", p.ImportPath, imp))
			}
		}
	}
	return bad
}

// listModule runs go list -json over the whole module.
func listModule(t *testing.T) (module string, pkgs []pkg) {
	t.Helper()
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-m")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	module = strings.TrimSpace(string(out))
	cmd = exec.Command("go", "list", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = root
	out, err = cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return module, pkgs
}

// TestImportRules: every depRules entry holds (the request path without
// the encoders and dev tooling, the judgment flow one way), no package but
// cmd/ and the dev tooling itself imports server/devtools, and no non-test
// file imports a test fixture package (a module package named *test).
func TestImportRules(t *testing.T) {
	module, pkgs := listModule(t)
	has := func(rel string) bool {
		return slices.ContainsFunc(pkgs, func(p pkg) bool { return p.ImportPath == module+"/"+rel })
	}
	// The rules must have something to hold: the request path, the dev
	// tooling and the fixtures are where the rules expect them.
	names := []string{devtools + "/bench", "server/store/storetest", "internal/judgingtest"}
	for _, r := range depRules {
		names = append(names, r.from)
	}
	for _, rel := range names {
		if !has(rel) {
			t.Fatalf("no package %s/%s: the rules name packages that moved", module, rel)
		}
	}
	for _, v := range check(module, pkgs) {
		t.Error(v)
	}
	for _, v := range checkAllowed(module, pkgs, allowedImports) {
		t.Error(v)
	}
}

// TestDomainImportsNoWireTypes: no package of server/ but the HTTP edge
// and the dev tooling imports the wire types (wireImporters).
func TestDomainImportsNoWireTypes(t *testing.T) {
	module, pkgs := listModule(t)
	for _, v := range checkWire(module, pkgs, allowedImports) {
		t.Error(v)
	}
}

// TestCheckWireCatchesViolations: a domain package importing api, or
// listing it in its row, fails; the HTTP edge, the dev tooling and the
// packages outside server/ pass.
func TestCheckWireCatchesViolations(t *testing.T) {
	const m = "example"
	allowed := map[string][]string{"server/httpapi": {"api"}, "server/judging": {"server/store"}}
	clean := []pkg{
		{ImportPath: m + "/server/httpapi", Imports: []string{m + "/api", m + "/server/judging"}},
		{ImportPath: m + "/server/devtools/loadgen", Imports: []string{m + "/api"}},
		{ImportPath: m + "/cmd/boolpool", Imports: []string{m + "/api"}},
		{ImportPath: m + "/server/judging", Imports: []string{m + "/server/store"}},
	}
	if got := checkWire(m, clean, allowed); len(got) > 0 {
		t.Errorf("violations in a clean graph: %q", got)
	}
	imports := append(slices.Clone(clean[:3]), pkg{ImportPath: m + "/server/judging", Imports: []string{m + "/api"}})
	if got := checkWire(m, imports, allowed); len(got) != 1 || !strings.Contains(got[0], "example/server/judging imports example/api") {
		t.Errorf("a domain import of api: violations %q", got)
	}
	row := map[string][]string{"server/httpapi": {"api"}, "server/judging": {"server/store", "api"}}
	if got := checkWire(m, clean, row); len(got) != 1 || !strings.Contains(got[0], "server/judging lists api") {
		t.Errorf("api in a domain row: violations %q", got)
	}
}

// TestCheckAllowedCatchesViolations: an import outside the package's row,
// a package without a row and a row without a package each fail; a "dir/..."
// row allows the packages below dir; imports outside the module are not
// ruled here.
func TestCheckAllowedCatchesViolations(t *testing.T) {
	const m = "example"
	allowed := map[string][]string{
		"server/store":   {"migrations"},
		"migrations":     {},
		"cmd/boolpool":   {"server/..."},
		"server/judging": {"server/store"},
	}
	clean := []pkg{
		{ImportPath: m + "/server/store", Imports: []string{m + "/migrations", "github.com/jackc/pgx/v5", "context"}},
		{ImportPath: m + "/migrations", Imports: []string{"embed"}},
		{ImportPath: m + "/cmd/boolpool", Imports: []string{m + "/server/store", m + "/server/judging"}},
		{ImportPath: m + "/server/judging", Imports: []string{m + "/server/store"}},
		{ImportPath: "other/module/pkg", Imports: []string{m + "/server/judging"}},
	}
	if got := checkAllowed(m, clean, allowed); len(got) > 0 {
		t.Errorf("violations in a clean graph: %q", got)
	}
	tests := []struct {
		name string
		pkgs []pkg
		want string
	}{
		{"an import outside the row", append(slices.Clone(clean[1:]),
			pkg{ImportPath: m + "/server/store", Imports: []string{m + "/migrations", m + "/server/judging"}}),
			"example/server/store imports example/server/judging, outside its row"},
		{"a dir/... row does not reach outside dir", append(slices.Clone(clean[:2]),
			pkg{ImportPath: m + "/cmd/boolpool", Imports: []string{m + "/encoders"}}, clean[3]),
			"example/cmd/boolpool imports example/encoders"},
		{"a package without a row", append(slices.Clone(clean),
			pkg{ImportPath: m + "/server/new"}),
			"example/server/new has no row"},
		{"a row without a package", clean[:3],
			"server/judging has a row in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkAllowed(m, tt.pkgs, allowed)
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("violations %q, want one with %q", got, tt.want)
			}
		})
	}
}

// TestCheckCatchesViolations: each rule fails on a graph that breaks it
// and passes on one that keeps it.
func TestCheckCatchesViolations(t *testing.T) {
	const m = "example"
	tests := []struct {
		name string
		pkgs []pkg
		want string // a substring of the one violation; "" = none
	}{
		{"clean", []pkg{
			{ImportPath: m + "/server/httpapi", Imports: []string{m + "/server/store"}, Deps: []string{m + "/server/store", "net/http"}},
			{ImportPath: m + "/server/store/storetest", Imports: []string{m + "/server/store", "testing"}},
			{ImportPath: m + "/server/judging/judgingtest", Imports: []string{m + "/server/store/storetest"}},
			{ImportPath: m + "/server/devtools/bench", Imports: []string{m + "/encoders", m + "/server/devtools/loadgen"}},
			{ImportPath: m + "/cmd/boolpool", Imports: []string{m + "/server/app", "net/http/httptest"}, Deps: []string{m + "/server/app", "net/http/httptest"}},
			{ImportPath: m + "/cmd/boolpool-lab", Imports: []string{m + "/server/devtools/bench", m + "/server/app"}, Deps: []string{m + "/server/devtools/bench", m + "/server/devtools/loadgen"}},
			{ImportPath: m + "/server/app", Imports: []string{m + "/encoders", m + "/server/httpapi"}, Deps: []string{m + "/encoders", m + "/server/httpapi"}},
		}, ""},
		{"a service package imports the composition root", []pkg{
			{ImportPath: m + "/server/jobs", Imports: []string{m + "/server/app"}},
		}, "example/server/jobs imports example/server/app"},
		{"the composition root on the dev tooling", []pkg{
			{ImportPath: m + "/server/app", Deps: []string{m + "/server/devtools/bench"}},
		}, "example/server/app depends on example/server/devtools/bench"},
		{"httpapi on the encoders, through another package", []pkg{
			{ImportPath: m + "/server/httpapi", Imports: []string{m + "/server/jobs"}, Deps: []string{m + "/server/jobs", m + "/encoders"}},
		}, "example/server/httpapi depends on example/encoders"},
		{"httpapi on an encoders subpackage", []pkg{
			{ImportPath: m + "/server/httpapi", Deps: []string{m + "/encoders/tokenizer"}},
		}, "depends on example/encoders/tokenizer"},
		{"httpapi on the dev tooling", []pkg{
			{ImportPath: m + "/server/httpapi", Deps: []string{m + "/server/devtools/loadgen"}},
		}, "depends on example/server/devtools/loadgen"},
		{"the server binary links the dev tooling, through another package", []pkg{
			{ImportPath: m + "/cmd/boolpool", Imports: []string{m + "/server/jobs"}, Deps: []string{m + "/server/jobs", m + "/server/devtools/synth"}},
		}, "example/cmd/boolpool depends on example/server/devtools/synth"},
		{"another command imports the dev tooling", []pkg{
			{ImportPath: m + "/cmd/other", Imports: []string{m + "/server/devtools/bench"}},
		}, "example/cmd/other imports example/server/devtools/bench (only cmd/boolpool-lab"},
		{"a domain package imports the dev tooling", []pkg{
			{ImportPath: m + "/server/live", Imports: []string{m + "/server/devtools/synth"}},
		}, "example/server/live imports example/server/devtools/synth"},
		{"judging on consensus (the flow run backwards)", []pkg{
			{ImportPath: m + "/server/judging", Deps: []string{m + "/server/store", m + "/server/consensus"}},
		}, "example/server/judging depends on example/server/consensus"},
		{"httpapi on onnxruntime_go, outside the module", []pkg{
			{ImportPath: m + "/server/httpapi", Deps: []string{"github.com/yalue/onnxruntime_go"}},
		}, "depends on github.com/yalue/onnxruntime_go"},
		{"live on export", []pkg{
			{ImportPath: m + "/server/live", Deps: []string{m + "/server/export"}},
		}, "example/server/live depends on example/server/export"},
		{"a fixture imported from a non-test file", []pkg{
			{ImportPath: m + "/server/devtools/retrievalbench", Imports: []string{m + "/server/judging/judgingtest"}},
		}, "imports the test fixture example/server/judging/judgingtest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := check(m, tt.pkgs)
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("violations in a clean graph: %q", got)
			case tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
				t.Errorf("violations %q, want one with %q", got, tt.want)
			}
		})
	}
}

// TestServerBinaryLinksNoDevtools is issue 26's target as written:
// `go list -deps ./cmd/boolpool` names no server/devtools package, while
// the lab binary does link them (so a renamed devtools folder cannot make
// this test pass vacuously).
func TestServerBinaryLinksNoDevtools(t *testing.T) {
	module, _ := listModule(t)
	deps := func(cmd string) []string {
		out, err := exec.Command("go", "list", "-deps", module+"/"+cmd).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", cmd, err)
		}
		var tools []string
		for _, d := range strings.Fields(string(out)) {
			if within(d, module+"/"+devtools) {
				tools = append(tools, d)
			}
		}
		return tools
	}
	if got := deps(serverCmd); len(got) > 0 {
		t.Errorf("%s links the dev tooling %q: move the command that needs it to %s", serverCmd, got, labCmd)
	}
	if got := deps(labCmd); !slices.Contains(got, module+"/"+devtools+"/bench") {
		t.Errorf("%s links %q of the dev tooling, want %s/bench among them", labCmd, got, devtools)
	}
}

// wiring are the constructors the composition root (server/app) calls to
// build the services and the job client, and the ONNX Runtime's opener.
var wiring = []string{"consensus.NewService(", "live.NewService(", "live.NewRelay(", "judging.New(", "auth.New(", "jobs.New(", "encoders.NewRuntime("}

// TestOneCompositionRoot: the commands, the HTTP tests and the browser
// tests build their server with server/app (app.New), never with copies of
// its wiring, and only server/app opens the ONNX Runtime
// (encoders.NewRuntime) outside the encoders and the tests of the
// packages that use it.
func TestOneCompositionRoot(t *testing.T) {
	root := moduleRoot(t)
	for _, dir := range []string{"cmd", httpapi, "web/e2e"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, w := range wiring {
				if strings.Contains(string(b), w) {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s calls %s: build the services with app.New (server/app) instead", rel, strings.TrimSuffix(w, "("))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Non-test files anywhere: the runtime opener is server/app's alone.
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || within(filepath.ToSlash(rel), encoders) || within(filepath.ToSlash(rel), appRoot) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), "encoders.NewRuntime(") {
			t.Errorf("%s opens the ONNX Runtime itself: call app.OpenRuntime (server/app)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(gomod)) == "" {
		t.Fatalf("go env GOMOD: %v %q", err, gomod)
	}
	return filepath.Dir(strings.TrimSpace(string(gomod)))
}
