package evalsim

import (
	"context"
	"fmt"
	"math"
	"testing"

	"boolpool/server/estimate"
	"boolpool/server/metrics"
	"boolpool/server/pooling"
)

// fixture: 3 queries over 200 documents; three runs of decreasing quality
// rank 100 documents each; each query has 12 relevant documents, 8 of
// them somewhere in the runs and 4 that no run retrieves (only the
// sample's rest-of-corpus stratum can reach those).
func fixture() ([]Query, []pooling.Run, []string) {
	var corpus []string
	for d := 0; d < 200; d++ {
		corpus = append(corpus, fmt.Sprintf("d%03d", d))
	}
	var qs []Query
	runs := []pooling.Run{{Name: "good", Lists: map[string][]string{}}, {Name: "mid", Lists: map[string][]string{}}, {Name: "poor", Lists: map[string][]string{}}}
	for q := 0; q < 3; q++ {
		id := fmt.Sprintf("q%d", q)
		rel := map[string]bool{}
		for i := 0; i < 12; i++ {
			rel[corpus[(q*50+i*15)%200]] = true
		}
		qs = append(qs, Query{ID: id, Rel: rel})
		for ri := range runs {
			// Relevant documents first with a quality-dependent gap, then the rest.
			var list []string
			seen := map[string]bool{}
			k := 0
			for i := 0; i < 12 && len(list) < 100; i++ {
				if i >= 8 {
					break // 4 relevant never retrieved
				}
				for g := 0; g < ri*3 && k < 200; g++ { // non-relevant filler before each relevant
					for k < 200 && (rel[corpus[k]] || seen[corpus[k]]) {
						k++
					}
					if k < 200 {
						list = append(list, corpus[k])
						seen[corpus[k]] = true
					}
				}
				d := corpus[(q*50+i*15)%200]
				list = append(list, d)
				seen[d] = true
			}
			for _, d := range corpus {
				if len(list) == 100 {
					break
				}
				if !seen[d] && !rel[d] {
					list = append(list, d)
					seen[d] = true
				}
			}
			runs[ri].Lists[id] = list
		}
	}
	return qs, runs, corpus
}

func measures(t *testing.T) []metrics.Spec {
	t.Helper()
	m, err := ParseMeasures("ap,ndcg@10,recall@20,p@5")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSimulateEverythingJudged: a budget that covers the whole corpus makes
// the sample (rate 1 everywhere, rest of the corpus included) judge every
// document, so every estimate equals the full-gold value (τ 1, RMSE 0,
// coverage 1) and R̂ is the gold count; depth judges every ranked
// document, so only R (the 4 unretrieved relevant per query) separates it
// from the truth, in recall and AP.
func TestSimulateEverythingJudged(t *testing.T) {
	qs, runs, corpus := fixture()
	in := Input{Queries: qs, Runs: runs, Corpus: corpus, Strategies: []string{Sample, pooling.Depth}, Depth: 100, Budget: 100000,
		Measures: measures(t), Proxy: map[string][]string{},
		Sample: estimate.SampleConfig{Strata: []estimate.RankStratum{{From: 1, To: 100, Rate: 1}}, Corpus: &estimate.CorpusStratum{Rest: true, RestRate: 1}, Seed: 3}}
	sum, err := Simulate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Gold != 36 || sum.Queries != 3 {
		t.Fatalf("gold %d queries %d", sum.Gold, sum.Queries)
	}
	s := sum.Strategies[Sample]
	for _, m := range sum.Measures {
		a := s.Estimate[m]
		if a.RMSE > 1e-9 || a.KendallTau != 1 || a.CICoverage == nil || *a.CICoverage != 1 {
			t.Errorf("sample %s: %+v (coverage %v), want exact", m, a, a.CICoverage)
		}
	}
	if s.Relevant == nil || s.Relevant.Est != 36 || !s.Relevant.Covered {
		t.Errorf("relevant %+v, want 36 covered", s.Relevant)
	}
	d := sum.Strategies[pooling.Depth]
	if d.Estimate["p@5"].RMSE > 1e-9 || d.Estimate["ndcg@10"].CICoverage != nil {
		t.Errorf("depth: p@5 rmse %v (want 0: every ranked document judged), ci %v (want none)", d.Estimate["p@5"].RMSE, d.Estimate["ndcg@10"].CICoverage)
	}
	// Depth misses the 4 relevant no run retrieved: its recall is 12/8 too high.
	for _, r := range sum.RunNames {
		v := d.Runs["recall@20"][r]
		if math.Abs(v.Value-v.Truth*12/8) > 1e-9 {
			t.Errorf("depth recall@20 of %s: %v, want truth %v × 12/8", r, v.Value, v.Truth)
		}
	}
}

// TestSimulateBudget: with a small budget every strategy stays within it,
// the sample's design is the scaled one, and the runs keep their order.
func TestSimulateBudget(t *testing.T) {
	qs, runs, corpus := fixture()
	in := Input{Queries: qs, Runs: runs, Corpus: corpus, Strategies: []string{pooling.Depth, Sample}, Depth: 100, Budget: 90,
		Measures: measures(t), Sample: estimate.SampleConfig{Strata: []estimate.RankStratum{{From: 1, To: 5, Rate: 1}, {From: 6, To: 100, Rate: 0.5}},
			Corpus: &estimate.CorpusStratum{Rest: true, RestRate: 0.1}, Seed: 5}}
	sum, err := Simulate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range sum.Strategies {
		if s.Judgments > 90 {
			t.Errorf("%s judged %d > 90", name, s.Judgments)
		}
	}
	if sum.SampleDesign == nil || sum.SampleDesign.Strata[1].Rate >= 0.5 {
		t.Errorf("design not scaled to the budget: %+v", sum.SampleDesign)
	}
	for _, bad := range []Input{{Strategies: []string{"nope"}}, {Strategies: []string{Sample}, Budget: 0}} {
		bad.Runs, bad.Measures = runs, in.Measures
		if _, err := Simulate(context.Background(), bad); err == nil {
			t.Errorf("%+v: no error", bad.Strategies)
		}
	}
}
