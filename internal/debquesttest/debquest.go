// Package debquesttest loads the DebQUEST val queries and atom oracle of
// the shared data for the atoms and constraint-pooling tests.
package debquesttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"boolpool/internal/shareddata"
	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
)

// ValQuery is a DebQUEST val query as an atoms.Query over normalised atom
// keys, with its atom phrases and gold documents.
type ValQuery struct {
	atoms.Query
	Texts []string
	Gold  []string
}

// LoadVal reads the DebQUEST val queries and the val atom oracle from
// BOOLPOOL_SHARED_DATA (the test is skipped without it).
func LoadVal(t testing.TB) ([]ValQuery, atoms.Oracle) {
	t.Helper()
	o, err := atoms.ReadOracleFile(filepath.Join(shareddata.Dir(t), "debquest", "atom-qrels-val.tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	qf := shareddata.Open(t, "debquest", "val.jsonl")
	var qs []ValQuery
	sc := bufio.NewScanner(qf)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 0; sc.Scan(); n++ {
		var line struct {
			Query    string   `json:"query"`
			Docs     []string `json:"docs"`
			Metadata struct {
				Template    string   `json:"template"`
				AtomPhrases []string `json:"atom_phrases"`
				Expression  string   `json:"expression"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("val line %d: %v", n+1, err)
		}
		e, err := boolexpr.Parse(line.Metadata.Expression)
		if err != nil {
			t.Fatalf("val line %d: %v", n+1, err)
		}
		keys := make([]string, len(line.Metadata.AtomPhrases))
		for i, p := range line.Metadata.AtomPhrases {
			keys[i] = atoms.Normalise(p)
		}
		gold := append([]string(nil), line.Docs...)
		sort.Strings(gold)
		qs = append(qs, ValQuery{Query: atoms.Query{ID: fmt.Sprintf("val-%03d", n), Expr: e, Atoms: keys}, Texts: line.Metadata.AtomPhrases, Gold: gold})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return qs, o
}
