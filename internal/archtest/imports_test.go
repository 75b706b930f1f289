package archtest

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// allowedImports is the map of ARCHITECTURE.md's package table as data:
// for each of the module's packages (module-relative), the module's
// packages its non-test files may import. An entry "dir/..." allows dir
// and every package below it. TestImportRules fails when a package imports
// one of the module's packages outside its row, when a package has no row,
// and when a row names a package that no longer exists. Standard-library
// and third-party imports are not listed here: depRules and
// wasm/deps_test.go rule those.
//
// Adding a dependency is a decision: add it to the row here and to the
// "may import" column of ARCHITECTURE.md in the same change.
var allowedImports = map[string][]string{
	// Commands: flags, files, output. boolpool wires everything (but links
	// no server/devtools: depRules); boolpool-lab runs the benchmarks.
	"cmd/boolpool":     {"encoders", "internal/cli", "server/...", "api"},
	"cmd/boolpool-lab": {"encoders", "internal/cli", "server/app", "server/devtools/...", "server/store"},

	// The composition root and the HTTP edge.
	"server/app": {"encoders", "server/apperr", "server/atompool", "server/auth", "server/config", "server/consensus",
		"server/embedjob", "server/httpapi", "server/jobs", "server/judging", "server/live", "server/pooling",
		"server/retrieval", "server/store", "server/strictjson", "server/sweep", "server/vocab"},
	// A test fixture: the composition root built for a test and closed at its end.
	"server/app/apptest": {"server/app", "server/config", "server/store"},
	"server/httpapi": {"server/apperr", "server/atompool", "server/atoms", "server/auth", "server/boolexpr", "server/config",
		"server/consensus", "server/decompose", "server/export", "server/ingest", "server/jobs", "server/judging",
		"server/live", "server/poolestimate", "server/pooling", "server/retrieval", "server/reuse", "server/store",
		"server/strictjson", "web", "api"},

	// The crash repair, started by server/app.
	"server/sweep": {"server/atompool", "server/consensus", "server/pooling", "server/store"},

	// The judgment flow: judging → consensus → live / export.
	"server/auth":      {"server/apperr", "server/store", "server/vocab"},
	"server/judging":   {"server/apperr", "server/boolexpr", "server/store", "server/vocab"},
	"server/consensus": {"server/apperr", "server/judging", "server/store", "server/vocab"},
	"server/live":      {"server/agreement", "server/boolexpr", "server/consensus", "server/metrics", "server/store", "server/vocab"},
	"server/export": {"server/apperr", "server/atoms", "server/boolexpr", "server/consensus", "server/judging",
		"server/store", "server/trecfmt", "server/vocab"},

	// Pools, retrieval, constraints, evaluation.
	"server/pooling": {"server/apperr", "server/boolexpr", "server/cal", "server/estimate", "server/lexical",
		"server/retrieval", "server/store", "server/vocab"},
	"server/cal":   {"server/lexical", "server/topk"},
	"server/atoms": {"server/apperr", "server/boolexpr", "server/store", "server/vocab"},
	"server/atompool": {"server/agreement", "server/apperr", "server/atoms", "server/boolexpr", "server/cal",
		"server/consensus", "server/pooling", "server/retrieval", "server/store", "server/strictjson", "server/topk", "server/vocab"},
	"server/atomsim": {"server/atompool", "server/atoms", "server/boolexpr", "server/cal", "server/pooling",
		"server/retrieval", "server/store", "server/vocab"},
	"server/poolestimate": {"server/apperr", "server/consensus", "server/estimate", "server/metrics", "server/pooling", "server/store"},
	"server/reuse": {"server/apperr", "server/consensus", "server/estimate", "server/metrics", "server/retrieval",
		"server/store"},
	"server/evalsim": {"server/cal", "server/estimate", "server/lexical", "server/metrics", "server/pooling",
		"server/retrieval", "server/store", "server/vocab"},
	"server/estimate":  {"server/metrics"},
	"server/retrieval": {"server/boolexpr", "server/lexical", "server/progress", "server/store", "server/topk"},
	"server/embedjob":  {"encoders", "encoders/tokenizer", "server/progress", "server/store"},

	// Input, jobs, the demo.
	"server/ingest":          {"server/apperr", "server/boolexpr", "server/decompose", "server/store", "server/textseg", "server/trecfmt"},
	"server/decompose":       {"server/apperr", "server/boolexpr", "server/decompose/learn", "server/store", "server/textseg"},
	"server/decompose/learn": {},
	"server/jobs": {"server/apperr", "server/estimate", "server/lexical", "server/pooling",
		"server/retrieval", "server/store", "server/strictjson", "server/vocab"},
	"server/demo": {"server/apperr", "server/auth", "server/ingest", "server/lexical", "server/pooling",
		"server/retrieval", "server/store", "server/vocab"},

	// Storage.
	"server/store":           {"migrations", "server/apperr", "server/vocab"},
	"server/store/storetest": {"server/store"},
	"migrations":             {},

	// Building blocks without the database.
	"server/vocab":      {},
	"server/agreement":  {},
	"server/apperr":     {},
	"server/strictjson": {"server/apperr"},
	"server/backup":     {},
	"server/boolexpr":   {},
	"server/config":     {},
	"server/lexical":    {"server/topk"},
	"server/metrics":    {},
	"server/progress":   {},
	"server/textseg":    {},
	"server/topk":       {},
	"server/trecfmt":    {"server/apperr", "server/textseg"},

	// The encoders (cgo, ONNX Runtime): none of server/.
	"encoders":           {"encoders/onnxgen", "encoders/tokenizer"},
	"encoders/onnxgen":   {},
	"encoders/tokenizer": {},

	// The browser app (js/wasm): no cgo, pgx, Echo (wasm/deps_test.go).
	"web":     {"server/boolexpr", "api"},
	"api":     {"server/boolexpr", "server/vocab"},
	"wasm":    {"web"},
	"web/e2e": {},

	// Dev tooling, linked by cmd/boolpool-lab only.
	"server/devtools/bench": {"encoders", "encoders/tokenizer", "server/apperr", "server/auth", "server/consensus",
		"server/devtools/loadgen", "server/devtools/synth", "server/export", "server/ingest", "server/live",
		"server/store", "server/vocab", "api"},
	"server/devtools/loadgen":    {"server/auth", "server/store", "server/vocab", "api"},
	"server/devtools/synth":      {"server/consensus", "server/live"},
	"server/devtools/valproject": {"server/ingest", "server/lexical", "server/retrieval", "server/store"},
	"server/devtools/atomsbench": {"server/atomsim", "server/atoms", "server/cal", "server/devtools/bench",
		"server/devtools/valproject", "server/lexical", "server/pooling"},
	"server/devtools/calbench": {"server/cal", "server/devtools/bench", "server/devtools/valproject", "server/lexical",
		"server/pooling", "server/retrieval", "server/store"},
	"server/devtools/estimatebench": {"encoders", "server/cal", "server/devtools/bench", "server/devtools/valproject",
		"server/embedjob", "server/estimate", "server/evalsim", "server/metrics", "server/pooling", "server/retrieval",
		"server/reuse", "server/store", "api"},
	"server/devtools/retrievalbench": {"encoders", "server/decompose", "server/devtools/bench", "server/embedjob",
		"server/ingest", "server/lexical", "server/live", "server/metrics", "server/pooling", "server/progress",
		"server/retrieval", "server/store"},
	"server/devtools/scalebench": {"encoders", "server/devtools/bench", "server/embedjob", "server/ingest",
		"server/lexical", "server/live", "server/pooling", "server/retrieval", "server/store", "server/vocab"},

	// Test fixtures (imported by tests only) and this test.
	"internal/cli":          {},
	"internal/judgingtest":  {"server/auth", "server/boolexpr", "server/retrieval", "server/store", "api"},
	"internal/debquesttest": {"server/atoms", "server/boolexpr", "server/decompose", "server/lexical", "internal/shareddata"},
	"internal/shareddata":   {},
	"internal/archtest":     {},
}

// wireImporters are the packages of server/ that may import the wire types
// (api): the HTTP edge, and the dev tooling that speaks HTTP. Every other
// server package uses its own types (or server/vocab's words); the
// conversions between them and api are the edge's, server/httpapi/convert_*.go.
// cmd/ (CLI output) and web/ are outside server/ and not ruled here.
var wireImporters = []string{"server/httpapi", "server/devtools/..."}

// checkWire returns every package of server/ outside wireImporters that
// imports api, and every such package whose row in allowed lists api.
func checkWire(module string, pkgs []pkg, allowed map[string][]string) []string {
	const why = "domain packages use no wire types: give the package its own type and convert at the HTTP edge (server/httpapi/convert_*.go)"
	var bad []string
	domain := func(rel string) bool { return within(rel, "server") && !allows(wireImporters, rel) }
	for _, p := range pkgs {
		from, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok || !domain(from) {
			continue
		}
		if slices.Contains(p.Imports, module+"/api") {
			bad = append(bad, fmt.Sprintf("%s imports %s/api: %s", p.ImportPath, module, why))
		}
	}
	for from, row := range allowed {
		if domain(from) && slices.Contains(row, "api") {
			bad = append(bad, fmt.Sprintf("%s lists api in its row of allowedImports: %s", from, why))
		}
	}
	sort.Strings(bad)
	return bad
}

// allows reports whether a row of allowedImports lets its package import
// dep (module-relative).
func allows(row []string, dep string) bool {
	return slices.ContainsFunc(row, func(a string) bool {
		if dir, ok := strings.CutSuffix(a, "/..."); ok {
			return within(dep, dir)
		}
		return a == dep
	})
}

// checkAllowed returns every import of one of the module's packages that
// the package's row in allowed does not list, every package without a row,
// and every row whose package is not in pkgs.
func checkAllowed(module string, pkgs []pkg, allowed map[string][]string) []string {
	const where = "allowedImports (internal/archtest/imports_test.go)"
	const also = "ARCHITECTURE.md's package table"
	var bad []string
	seen := map[string]bool{}
	for _, p := range pkgs {
		from, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			continue
		}
		seen[from] = true
		row, ok := allowed[from]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s has no row in %s: add one listing the packages it may import, and the package to %s", p.ImportPath, where, also))
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok || allows(row, dep) {
				continue
			}
			bad = append(bad, fmt.Sprintf("%s imports %s, outside its row in %s (may import: %s); if the dependency is meant, add it there and to %s",
				p.ImportPath, imp, where, strings.Join(row, ", "), also))
		}
	}
	var stale []string
	for from := range allowed {
		if !seen[from] {
			stale = append(stale, fmt.Sprintf("%s has a row in %s but is no package of the module: remove or rename the row", from, where))
		}
	}
	sort.Strings(stale)
	return append(bad, stale...)
}
