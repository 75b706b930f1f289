package retrieval

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"boolpool/server/boolexpr"
	"boolpool/server/lexical"
)

// debquest loads the shared DebQUEST corpus and val queries (skipped unless
// BOOLPOOL_SHARED_DATA points at ../shared/data).
func debquest(tb testing.TB) (*lexical.Index, []Query) {
	tb.Helper()
	docs, qs := debquestDocs(tb)
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), runtime.GOMAXPROCS(0))
	if err != nil {
		tb.Fatal(err)
	}
	return ix, qs
}

// debquestDocs reads the shared DebQUEST corpus and val queries (skipped
// unless BOOLPOOL_SHARED_DATA points at ../shared/data).
func debquestDocs(tb testing.TB) ([]lexical.Doc, []Query) {
	tb.Helper()
	dir := os.Getenv("BOOLPOOL_SHARED_DATA")
	if dir == "" {
		tb.Skip("BOOLPOOL_SHARED_DATA not set")
	}
	f, err := os.Open(filepath.Join(dir, "debquest", "documents.jsonl.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var docs []lexical.Doc
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatal(err)
		}
		docs = append(docs, lexical.Doc{ExtID: d.Title, Title: d.Title, Body: d.Text})
	}
	qf, err := os.Open(filepath.Join(dir, "debquest", "val.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer qf.Close()
	var qs []Query
	sc = bufio.NewScanner(qf)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l struct {
			Query         string `json:"query"`
			OriginalQuery string `json:"original_query"`
			Metadata      struct {
				Template string `json:"template"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			tb.Fatal(err)
		}
		bq, err := boolexpr.QueryFromQuest(l.OriginalQuery, l.Metadata.Template)
		if err != nil {
			tb.Fatal(err)
		}
		q := Query{ID: l.Query, Text: l.Query, Template: l.Metadata.Template, Expr: bq.Expr, Atoms: bq.Atoms}
		qs = append(qs, q)
	}
	return docs, qs
}

// BenchmarkLexicalMethods times one query of each lexical method, cycling
// through the DebQUEST val queries on the full corpus.
func BenchmarkLexicalMethods(b *testing.B) {
	ix, qs := debquest(b)
	for _, name := range []string{"bm25", "bm25-strict-boolean", "pnorm", "sparse-disentangled-negation", "sparse-maxpool-union", "sparse-cpt"} {
		m, err := New(name, nil, Deps{Lexical: ix})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := m.Retrieve(context.Background(), qs[i%len(qs)], 1000); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
