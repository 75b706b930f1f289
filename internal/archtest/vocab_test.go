package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"boolpool/server/vocab"
)

// vocabHome is the one package that defines the shared vocabulary.
const vocabHome = "server/vocab"

// vocabulary is every word the server, the store and the wire contract
// share, by group. Each must have exactly one const definition in the
// module (a string literal), in vocabHome; every other package names it
// through vocabHome (api.RoleAdmin = vocab.RoleAdmin, pooling.Depth =
// vocab.StrategyDepth).
var vocabulary = map[string][]string{
	"roles":             {"annotator", "researcher", "admin"},
	"task kinds":        {"relevance", "constraint", "paraphrase", "validation"},
	"job kinds":         {"retrieve", "encode", "index", "pool", "cal-batch", "atoms-batch"},
	"job states":        {"queued", "running", "done", "failed", "interrupted", "cancelled"},
	"strategies":        {"docid", "depth", "mtf", "bandit", "cal", "atoms", "sample", "atoms-pools", "cal-full", "cal-bound", "feedback"},
	"consensus methods": {"majority", "dawid-skene"},
	"evidence values":   {"complete", "partial", "none"},
	"satisfied labels":  {"yes", "no", "unsure"},
	"qrels sources":     {"direct", "derived", "both"},
	"review verdicts":   {"accept", "correct"},
	"headers":           {"X-CSRF-Token"},
}

// homonyms are const definitions spelt like a vocabulary word that mean
// something else ("package.Name" → what it means).
var homonyms = map[string]string{
	"server/store.AssignDone":          "an assignment's state, not a job's",
	"server/consensus.StatusMajority":  "an item's consensus status (a majority of votes), not the method",
	"server/pooling.CALStopNone":       "a cal stopping rule",
	"server/jobs.QueueEncode":          "the River queue of the encode jobs",
	"server/devtools/atomsbench.suite": "a bench suite's name",
	"server/devtools/calbench.suite":   "a bench suite's name",
}

// constDef is one const definition with a string literal value.
type constDef struct {
	pkg, name, value, pos string
}

// stringConsts parses every non-test Go file under root (no testdata, no
// hidden directories) and returns its string-literal const definitions,
// package-level and in functions.
func stringConsts(t *testing.T, root string) []constDef {
	t.Helper()
	var defs []constDef
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		// Every const declaration, in functions too.
		ast.Inspect(f, func(n ast.Node) bool {
			gd, ok := n.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				return true
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING || i >= len(vs.Names) {
						continue
					}
					if s, err := strconv.Unquote(lit.Value); err == nil {
						defs = append(defs, constDef{pkg: path.Dir(rel), name: vs.Names[i].Name, value: s,
							pos: rel + ":" + strconv.Itoa(fset.Position(lit.Pos()).Line)})
					}
				}
			}
			return false
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// checkVocabulary returns every vocabulary word defined other than once
// in home, every string const of home that the vocabulary does not list,
// and every homonym entry that names no definition.
func checkVocabulary(defs []constDef, vocab map[string][]string, homonyms map[string]string, home string) []string {
	group := map[string]string{}
	for g, words := range vocab {
		for _, w := range words {
			group[w] = g
		}
	}
	where := map[string][]constDef{}
	usedHomonym := map[string]bool{}
	var bad []string
	for _, d := range defs {
		key := d.pkg + "." + d.name
		if _, ok := homonyms[key]; ok {
			usedHomonym[key] = true
			continue
		}
		if _, ok := group[d.value]; ok {
			where[d.value] = append(where[d.value], d)
		} else if d.pkg == home {
			bad = append(bad, d.pos+": "+d.name+" = "+strconv.Quote(d.value)+" is in "+home+" but in no group of the vocabulary (internal/archtest/vocab_test.go): list it")
		}
	}
	for w, g := range group {
		ds := where[w]
		switch {
		case len(ds) == 0:
			bad = append(bad, "the "+g+" word "+strconv.Quote(w)+" has no const definition: define it in "+home)
		case len(ds) > 1 || ds[0].pkg != home:
			var at []string
			for _, d := range ds {
				at = append(at, d.pos+" ("+d.name+")")
			}
			bad = append(bad, "the "+g+" word "+strconv.Quote(w)+" is defined at "+strings.Join(at, ", ")+
				": define it once, in "+home+", and name it from there (or list a different meaning in homonyms)")
		}
	}
	for key := range homonyms {
		if !usedHomonym[key] {
			bad = append(bad, "homonyms lists "+key+", which defines no string const: remove the entry")
		}
	}
	sort.Strings(bad)
	return bad
}

// TestVocabularyDefinedOnce: each vocabulary word (roles, task kinds, job
// kinds and states, strategies, consensus methods, evidence values) has
// exactly one const definition in the module, in server/vocab.
func TestVocabularyDefinedOnce(t *testing.T) {
	root := moduleRoot(t)
	defs := stringConsts(t, root)
	if !slices.ContainsFunc(defs, func(d constDef) bool { return d.pkg == vocabHome }) {
		t.Fatalf("no string const in %s: the vocabulary moved", vocabHome)
	}
	for _, v := range checkVocabulary(defs, vocabulary, homonyms, vocabHome) {
		t.Error(v)
	}
}

// TestCheckVocabularyCatchesViolations: a second definition, a definition
// outside the home, a missing word, an unlisted word in the home and a
// stale homonym each fail; a listed homonym passes.
func TestCheckVocabularyCatchesViolations(t *testing.T) {
	const home = "server/vocab"
	words := map[string][]string{"roles": {"admin"}, "job states": {"done"}}
	hom := map[string]string{"server/store.AssignDone": "an assignment's state"}
	clean := []constDef{
		{home, "RoleAdmin", "admin", "server/vocab/vocab.go:1"},
		{home, "JobDone", "done", "server/vocab/vocab.go:2"},
		{"server/store", "AssignDone", "done", "server/store/assignments.go:3"},
		{"server/pooling", "Other", "unrelated", "server/pooling/x.go:4"},
	}
	if got := checkVocabulary(clean, words, hom, home); len(got) > 0 {
		t.Errorf("violations in a clean tree: %q", got)
	}
	tests := []struct {
		name string
		defs []constDef
		want string
	}{
		{"a second definition", append(slices.Clone(clean), constDef{"api", "RoleAdmin", "admin", "api/api.go:5"}),
			`"admin" is defined at server/vocab/vocab.go:1 (RoleAdmin), api/api.go:5 (RoleAdmin)`},
		{"the one definition outside the home", append(slices.Clone(clean[1:]), constDef{"api", "RoleAdmin", "admin", "api/api.go:5"}),
			`"admin" is defined at api/api.go:5`},
		{"a missing word", clean[1:], `"admin" has no const definition`},
		{"an unlisted word in the home", append(slices.Clone(clean), constDef{home, "RoleGuest", "guest", "server/vocab/vocab.go:6"}),
			`RoleGuest = "guest" is in server/vocab but in no group`},
		{"a stale homonym", []constDef{clean[0], clean[1]}, "homonyms lists server/store.AssignDone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkVocabulary(tt.defs, words, hom, home)
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("violations %q, want one with %q", got, tt.want)
			}
		})
	}
}

// schemaChecks are the CHECK constraints of migrations/schema.sql that
// list vocabulary words, with the words they must allow.
var schemaChecks = map[string][]string{
	"users_role_check":         vocabulary["roles"],
	"items_kind_check":         vocabulary["task kinds"],
	"judgments_kind_check":     vocabulary["task kinds"],
	"jobs_state_check":         vocabulary["job states"],
	"judgments_evidence_check": vocabulary["evidence values"],
	"pools_strategy_check":     vocab.Strategies(vocab.Publish),
}

// checkValues matches a CHECK (col = ANY (ARRAY['a'::text, …])) line of
// the schema dump.
var checkValues = regexp.MustCompile(`CONSTRAINT (\w+) CHECK \(\(\w+ = ANY \(ARRAY\[([^\]]*)\]\)\)\)`)

// checkSchema returns every constraint of want that schema lacks or whose
// words differ from want's (as sets).
func checkSchema(schema string, want map[string][]string) []string {
	got := map[string][]string{}
	for _, m := range checkValues.FindAllStringSubmatch(schema, -1) {
		var words []string
		for _, v := range strings.Split(m[2], ",") {
			words = append(words, strings.TrimSuffix(strings.Trim(strings.TrimSpace(v), "'"), "'::text"))
		}
		got[m[1]] = words
	}
	var bad []string
	for name, words := range want {
		have, ok := got[name]
		if !ok {
			bad = append(bad, "migrations/schema.sql has no constraint "+name+" listing its words")
			continue
		}
		a, b := slices.Clone(have), slices.Clone(words)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			bad = append(bad, fmt.Sprintf("migrations/schema.sql: %s allows %q, server/vocab defines %q: a migration changes the CHECK when a word is added", name, have, words))
		}
	}
	sort.Strings(bad)
	return bad
}

// TestSchemaChecksMatchVocabulary: the database's CHECK constraints on
// roles, task kinds, job states, evidence values and pool strategies
// allow exactly the words server/vocab defines (the publishable
// strategies of its registry), so the SQL lists are no second definition
// that can drift.
func TestSchemaChecksMatchVocabulary(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join(moduleRoot(t), "migrations", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range checkSchema(string(schema), schemaChecks) {
		t.Error(v)
	}
	bad := checkSchema("    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['annotator'::text, 'admin'::text])))",
		map[string][]string{"users_role_check": vocabulary["roles"], "pools_strategy_check": {"depth"}})
	if len(bad) != 2 || !strings.Contains(bad[0], "no constraint pools_strategy_check") || !strings.Contains(bad[1], `users_role_check allows ["annotator" "admin"]`) {
		t.Errorf("checkSchema on a drifted schema: %q", bad)
	}
}
