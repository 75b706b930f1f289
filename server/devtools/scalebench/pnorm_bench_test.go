package scalebench

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"testing"
	"time"

	"boolpool/internal/debquesttest"
	"boolpool/server/lexical"
	"boolpool/server/retrieval"
)

// BenchmarkLexicalSynthetic times the lexical methods (one query at a
// time, top 1000, the scale suite's 200 DebQUEST val queries) on the scale
// suite's synthetic corpus of BOOLPOOL_BENCH_SYNTH_DOCS documents (same
// generator and seed), indexed in this process without a database: the
// lexical rows of an 8.8M scale run in a few minutes instead of an hour.
// It reports each method's p50 and p95 in ms (bm25 is the reference).
//
//	BOOLPOOL_SHARED_DATA=../shared/data BOOLPOOL_BENCH_SYNTH_DOCS=8800000 \
//	  go test -run X -bench LexicalSynthetic -benchtime 1x -timeout 60m ./server/devtools/scalebench/
func BenchmarkLexicalSynthetic(b *testing.B) {
	shared, nEnv := os.Getenv("BOOLPOOL_SHARED_DATA"), os.Getenv("BOOLPOOL_BENCH_SYNTH_DOCS")
	if shared == "" || nEnv == "" {
		b.Skip("needs BOOLPOOL_SHARED_DATA and BOOLPOOL_BENCH_SYNTH_DOCS")
	}
	n, err := strconv.Atoi(nEnv)
	if err != nil || n < 1 {
		b.Fatalf("BOOLPOOL_BENCH_SYNTH_DOCS=%q: want a positive integer", nEnv)
	}
	dir := filepath.Join(shared, "debquest")
	src, err := ReadSource(filepath.Join(dir, "documents.jsonl.gz"))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	ix := buildSynthetic(b, src, n)
	b.Logf("%d synthetic documents generated and indexed in %s", n, time.Since(start).Round(time.Second))
	qs := valQueries(b, filepath.Join(dir, "val.jsonl"), nQueries)
	for _, name := range []string{"bm25", "pnorm", "bm25-strict-boolean", "sparse-disentangled-negation", "sparse-maxpool-union", "sparse-cpt"} {
		m, err := retrieval.New(name, nil, retrieval.Deps{Lexical: ix})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				lat := make([]float64, 0, len(qs))
				for _, q := range qs {
					t0 := time.Now()
					if _, err := m.Retrieve(context.Background(), q, 1000); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
				}
				sort.Float64s(lat)
				b.ReportMetric(lat[len(lat)/2], "p50-ms")
				b.ReportMetric(lat[len(lat)*95/100], "p95-ms")
			}
		})
	}
}

// buildSynthetic generates n documents (Generate, the suite's seed) and
// indexes them as the server does (title and text), streaming.
func buildSynthetic(b *testing.B, src Source, n int) *lexical.Index {
	b.Helper()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(Generate(pw, src, n, seed)) }()
	bld := lexical.NewBuilder(context.Background(), lexical.DefaultParams(), runtime.GOMAXPROCS(0))
	defer bld.Close()
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			b.Fatal(err)
		}
		if err := bld.Add(lexical.Doc{ExtID: d.Title, Title: d.Title, Body: d.Text}); err != nil {
			b.Fatal(err)
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	ix, err := bld.Finish()
	if err != nil {
		b.Fatal(err)
	}
	return ix
}

// valQueries reads the first n queries of a DebQUEST queries file.
func valQueries(b *testing.B, path string, n int) []retrieval.Query {
	b.Helper()
	var qs []retrieval.Query
	for _, q := range debquesttest.QuestQueries(b, path, n) {
		qs = append(qs, retrieval.Query{ID: q.Text, Text: q.Text, Template: q.Template, Expr: q.Expr, Atoms: q.Atoms})
	}
	return qs
}
