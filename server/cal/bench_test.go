package cal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"boolpool/internal/debquesttest"
	"boolpool/server/lexical"
)

// benchCorpus is the DebQUEST corpus (60,535 documents) when
// BOOLPOOL_SHARED_DATA is set, else 60,000 synthetic documents with a
// Zipfian vocabulary and DebQUEST's mean length (~46 terms).
func benchCorpus(b testing.TB) ([]lexical.Doc, string) {
	b.Helper()
	if dir := os.Getenv("BOOLPOOL_SHARED_DATA"); dir != "" {
		return debquesttest.Documents(b, dir), "DebQUEST documents"
	}
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 2, 70000)
	docs := make([]lexical.Doc, 60000)
	buf := make([]byte, 0, 1024)
	for i := range docs {
		buf = buf[:0]
		n := 20 + rng.IntN(60)
		for range n {
			buf = fmt.Appendf(buf, "w%dx ", zipf.Uint64())
		}
		docs[i] = lexical.Doc{ExtID: fmt.Sprintf("d%05d", i), Body: string(buf)}
	}
	return docs, "synthetic documents"
}

// BenchmarkRound times one cal round (train on 10 relevant, 50 judged
// non-relevant and 100 provisional negatives, with a 600-document prior as
// a feature; score the whole corpus; pick the top 20 unjudged) against the reference, one exact BM25 query over
// the same corpus (every posting of its terms scored, top 1000), measured
// alternately in the same run. It reports both medians and their ratio.
func BenchmarkRound(b *testing.B) {
	docs, what := benchCorpus(b)
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), 2)
	if err != nil {
		b.Fatal(err)
	}
	tf := time.Now()
	f := FromIndex(ix)
	featMs := float64(time.Since(tf).Microseconds()) / 1000
	e := NewEngine(f, DefaultOptions())
	rng := rand.New(rand.NewPCG(3, 4))
	query, qv, labels, prior := benchRequest(rng, ix, f, docs)
	ctx := context.Background()
	var calMs, bm25Ms []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := e.NextBatch(ctx, Request{Query: query, Labels: labels, Prior: prior, Size: 20, Round: i}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if hits := ix.Search(qv, 1000); len(hits) == 0 {
			b.Fatal("no BM25 hits")
		}
		t2 := time.Now()
		calMs = append(calMs, float64(t1.Sub(t0).Microseconds())/1000)
		bm25Ms = append(bm25Ms, float64(t2.Sub(t1).Microseconds())/1000)
	}
	b.StopTimer()
	c, r := median(calMs), median(bm25Ms)
	b.ReportMetric(c, "round-ms")
	b.ReportMetric(r, "bm25-ms")
	b.ReportMetric(c/max(r, 1e-6), "round/bm25")
	b.Logf("%s: %d docs, %d weights (features built in %.0f ms), %d query terms; cal round median %.2f ms (target <= 500 ms), exact BM25 query median %.3f ms, ratio %.1fx",
		what, f.NumDocs(), f.NNZ(), featMs, len(qv), c, r, c/max(r, 1e-6))
}

// benchRequest draws the benchmarks' request from rng: a random document's
// text as the query (and its BM25 vector), 60 judged documents (10
// relevant) and, as the prior (a feature by default), the query's top 600
// by BM25, the size of the fusion of six depth-100 runs.
func benchRequest(rng *rand.Rand, ix *lexical.Index, f *Features, docs []lexical.Doc) (query string, qv lexical.Vec, labels map[string]bool, prior []string) {
	perm := rng.Perm(f.NumDocs())
	labels = map[string]bool{}
	for i, d := range perm[:60] {
		labels[f.DocID(uint32(d))] = i < 10
	}
	query = docs[perm[0]].Title + " " + docs[perm[0]].Body
	qv = ix.QueryVector(lexical.NewAnalyzer(), query)
	for _, h := range ix.Search(qv, 600) {
		prior = append(prior, f.DocID(h.Doc))
	}
	return query, qv, labels, prior
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// BenchmarkRoundDense times the same round with dense features (a 256-d
// embedding block at weight 0.5 and the query-cosine feature) against the
// lexical round and the BM25 reference, the three alternately in one run.
// On DebQUEST the embeddings are minilm-static's (real ONNX Runtime; kept
// in BOOLPOOL_CAL_DENSE_CACHE when set); on the synthetic corpus random
// unit vectors.
func BenchmarkRoundDense(b *testing.B) {
	docs, what := benchCorpus(b)
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), 2)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var vecs [][]float32
	var qvec func(string) []float32
	if os.Getenv("BOOLPOOL_SHARED_DATA") != "" {
		enc := newTestEncoder(b)
		vecs = enc.corpus(b, docs)
		qvec = func(s string) []float32 { return enc.text(b, s) }
	} else {
		random := func() []float32 {
			v := make([]float32, 256)
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
			return v
		}
		for range docs {
			vecs = append(vecs, random())
		}
		qvec = func(string) []float32 { return random() }
	}
	lexF := FromIndex(ix)
	tf := time.Now()
	denseF, err := FromIndexWith(ix, FeatureOptions{Dense: vecs, DenseWeight: 0.5})
	if err != nil {
		b.Fatal(err)
	}
	featMs := float64(time.Since(tf).Microseconds()) / 1000
	lexE := NewEngine(lexF, DefaultOptions())
	opt := DefaultOptions()
	opt.QueryCosine = 1
	denseE := NewEngine(denseF, opt)
	query, qv, labels, prior := benchRequest(rng, ix, lexF, docs)
	q := qvec(query)
	ctx := context.Background()
	var lexMs, denseMs, bm25Ms []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := lexE.NextBatch(ctx, Request{Query: query, Labels: labels, Prior: prior, Size: 20, Round: i}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := denseE.NextBatch(ctx, Request{Query: query, QueryVec: q, Labels: labels, Prior: prior, Size: 20, Round: i}); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if hits := ix.Search(qv, 1000); len(hits) == 0 {
			b.Fatal("no BM25 hits")
		}
		t3 := time.Now()
		lexMs = append(lexMs, float64(t1.Sub(t0).Microseconds())/1000)
		denseMs = append(denseMs, float64(t2.Sub(t1).Microseconds())/1000)
		bm25Ms = append(bm25Ms, float64(t3.Sub(t2).Microseconds())/1000)
	}
	b.StopTimer()
	l, d, r := median(lexMs), median(denseMs), median(bm25Ms)
	b.ReportMetric(l, "lexical-round-ms")
	b.ReportMetric(d, "dense-round-ms")
	b.ReportMetric(r, "bm25-ms")
	b.ReportMetric(d/max(r, 1e-6), "dense-round/bm25")
	b.Logf("%s: %d docs, %d weights with the dense block (built in %.0f ms from the lexical index); round median lexical %.2f ms, lexical+dense %.2f ms (target <= 500 ms), exact BM25 query %.3f ms; dense/bm25 %.1fx, dense/lexical %.1fx",
		what, denseF.NumDocs(), denseF.NNZ(), featMs, l, d, r, d/max(r, 1e-6), d/max(l, 1e-6))
}
