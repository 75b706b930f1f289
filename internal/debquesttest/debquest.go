// Package debquesttest loads the DebQUEST val queries and atom oracle of
// the shared data for the atoms and constraint-pooling tests, and its
// corpus for the tests that index it.
package debquesttest

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"boolpool/internal/shareddata"
	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/decompose"
	"boolpool/server/lexical"
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

// Documents reads the DebQUEST corpus, dataDir/debquest/documents.jsonl.gz
// (dataDir is BOOLPOOL_SHARED_DATA), as documents to index: the title is
// the id.
func Documents(t testing.TB, dataDir string) []lexical.Doc {
	t.Helper()
	f, err := os.Open(filepath.Join(dataDir, "debquest", "documents.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var docs []lexical.Doc
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, lexical.Doc{ExtID: d.Title, Title: d.Title, Body: d.Text})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// QuestQuery is a QUEST-format query line parsed into its Boolean form.
type QuestQuery struct {
	Text, Template string
	Expr           *boolexpr.Expr
	Atoms          []string
}

// QuestQueries reads the first n queries (all when n <= 0) of a QUEST
// queries file (e.g. debquest/val.jsonl) with their expressions and atoms,
// parsed as the decomposer's evaluation reads them (decompose.ReadQuest),
// as the retrieval benchmarks run them.
func QuestQueries(t testing.TB, path string, n int) []QuestQuery {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gold, err := decompose.ReadQuest(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if n > 0 && len(gold) > n {
		gold = gold[:n]
	}
	qs := make([]QuestQuery, len(gold))
	for i, g := range gold {
		qs[i] = QuestQuery{Text: g.Query, Template: g.Template, Expr: g.Expr, Atoms: g.Atoms}
	}
	return qs
}
