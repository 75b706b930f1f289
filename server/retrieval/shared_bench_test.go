package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"boolpool/internal/debquesttest"
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
	var qs []Query
	for _, q := range debquesttest.QuestQueries(tb, filepath.Join(dir, "debquest", "val.jsonl"), 0) {
		qs = append(qs, Query{ID: q.Text, Text: q.Text, Template: q.Template, Expr: q.Expr, Atoms: q.Atoms})
	}
	return debquesttest.Documents(tb, dir), qs
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
