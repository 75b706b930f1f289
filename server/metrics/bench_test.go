package metrics

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// synthetic builds a collection shaped like the live-dashboard target:
// queries × (docs per run) results and judgedPerQuery graded judgments per
// query, deterministic for a seed.
func synthetic(queries, depth, judgedPerQuery int, seed uint64) (Qrels, Run) {
	rng := rand.New(rand.NewPCG(seed, 1))
	qrels := make(Qrels, queries)
	run := make(Run, queries)
	for q := range queries {
		qid := fmt.Sprintf("q%d", q)
		j := make(map[string]int, judgedPerQuery)
		for range judgedPerQuery {
			j[fmt.Sprintf("d%d", rng.IntN(4*depth))] = rng.IntN(4)
		}
		qrels[qid] = j
		docs := make([]Scored, depth)
		for i := range docs {
			// Coarse scores so that ties, and the docid tie-break, are common.
			docs[i] = Scored{DocID: fmt.Sprintf("d%d", rng.IntN(4*depth)), Score: float64(rng.IntN(depth / 2))}
		}
		run[qid] = docs
	}
	return qrels, run
}

// BenchmarkEvaluateRun scores one run of 2,000 queries × 100 results against
// 100k judgments with the default measures (ranking included).
func BenchmarkEvaluateRun(b *testing.B) {
	qrels, run := synthetic(2000, 100, 50, 42)
	specs, err := ParseSpecs(DefaultSpecs + ",f1@20")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ranked, _ := RankRun(run)
		Evaluate(qrels, ranked, specs, Options{})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/run")
}

// BenchmarkEvaluateQuery is the unit of a live update: one new judgment
// changes one query, so only that query's values are recomputed (for each
// run) and the means adjusted.
func BenchmarkEvaluateQuery(b *testing.B) {
	qrels, run := synthetic(1, 100, 50, 7)
	ranked, _ := RankRun(run)
	specs, err := ParseSpecs(DefaultSpecs)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		EvaluateQuery(ranked["q0"], qrels["q0"], nil, specs, 1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/query")
}

// BenchmarkBootstrap is a 1,000-resample interval over 2,000 queries.
func BenchmarkBootstrap(b *testing.B) {
	xs := make([]float64, 2000)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range xs {
		xs[i] = rng.Float64()
	}
	b.ResetTimer()
	for b.Loop() {
		BootstrapSlice(xs, 1000, 0.95, 1)
	}
}
