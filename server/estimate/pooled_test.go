package estimate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"boolpool/server/metrics"
)

// sparseQueries is 40 queries over 1,000 ranked documents each: ranks
// 1–10 hold 4 relevant documents, ranks 11–1000 hold 6 more spread at
// random (a density of 0.6 %), so a deep stratum sampled at 2 % finds
// about 0.12 relevant documents per query — most queries none, now and
// then one worth 50.
func sparseQueries(seed uint64) (map[string]QueryInput, map[string]map[string]int, []NamedRanking) {
	rng := rand.New(rand.NewPCG(seed, 9))
	inputs := map[string]QueryInput{}
	gold := map[string]map[string]int{}
	run := NamedRanking{Name: "A", Lists: map[string][]string{}}
	other := NamedRanking{Name: "B", Lists: map[string][]string{}}
	for q := range 40 {
		id := fmt.Sprintf("q%02d", q)
		var list []string
		for i := range 1000 {
			list = append(list, fmt.Sprintf("%s-d%d", id, i))
		}
		g := map[string]int{}
		for _, i := range rng.Perm(10)[:4] {
			g[list[i]] = 1
		}
		for _, i := range rng.Perm(990)[:6] {
			g[list[10+i]] = 1
		}
		gold[id] = g
		run.Lists[id] = list
		rev := append([]string(nil), list[:10]...)
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		other.Lists[id] = append(rev, list[10:]...)
		inputs[id] = QueryInput{Query: id, Lists: [][]string{list}}
	}
	return inputs, gold, []NamedRanking{run, other}
}

// TestPoolSparse: with the deep stratum's rate pooled over the queries the
// intervals of the total of relevant documents and of the mean recall@100
// cover the truth in at least 85 % of 200 draws, more often than the
// per-query jackknives (blind to a stratum without a relevant unit), and a
// design without a sparse stratum gives the same report either way.
func TestPoolSparse(t *testing.T) {
	cfg := SampleConfig{Strata: []RankStratum{{From: 1, To: 10, Rate: 1}, {From: 11, To: 1000, Rate: 0.02}}}
	specs := []metrics.Spec{{Name: metrics.MeasureRecall, K: 100}}
	inputs, gold, runs := sparseQueries(1)
	truthRecall := 0.0
	for q, g := range gold {
		truthRecall += metrics.Recall(runs[0].Lists[q], g, 1, 100)
	}
	truthRecall /= float64(len(gold))
	const draws = 200
	var coverPooled, coverPlain, coverRecall int
	var errPooled, errPlain float64
	for i := range draws {
		rng := rand.New(rand.NewPCG(uint64(i), 5))
		in := Input{Designs: map[string]QueryDesign{}, Judged: map[string]map[string]int{}, Runs: runs, Specs: specs}
		for _, q := range metrics.SortedKeys(inputs) {
			d := Draw(inputs[q], cfg, rng)
			in.Designs[q] = d
			j := map[string]int{}
			for _, u := range d.Units {
				j[u.Doc] = gold[q][u.Doc]
			}
			in.Judged[q] = j
		}
		plain := Estimate(in)
		in.PoolSparse = true
		pooled := Estimate(in)
		if len(pooled.Pooled) != 1 || pooled.Pooled[0].Queries != 40 {
			t.Fatalf("pooled strata %+v, want the deep stratum of 40 queries", pooled.Pooled)
		}
		const truthR = 400
		if v := pooled.RelevantTotal; v.Lo <= truthR && truthR <= v.Hi {
			coverPooled++
		}
		if v := plain.RelevantTotal; v.Lo <= truthR && truthR <= v.Hi {
			coverPlain++
		}
		errPooled += math.Abs(pooled.RelevantTotal.Est - truthR)
		errPlain += math.Abs(plain.RelevantTotal.Est - truthR)
		if v := pooled.Runs[0].Means["recall@100"]; v.Lo <= truthRecall && truthRecall <= v.Hi {
			coverRecall++
		}
	}
	t.Logf("R̂ total: coverage pooled %d/%d, per-query %d/%d; mean |error| pooled %.1f, per-query %.1f; recall@100 coverage pooled %d/%d",
		coverPooled, draws, coverPlain, draws, errPooled/draws, errPlain/draws, coverRecall, draws)
	if coverPooled < draws*85/100 || coverRecall < draws*85/100 {
		t.Errorf("pooled coverage R̂ %d, recall %d of %d, want ≥ 85 %%", coverPooled, coverRecall, draws)
	}
	if coverPlain >= coverPooled {
		t.Errorf("per-query coverage %d not below pooled %d", coverPlain, coverPooled)
	}
	// No sparse stratum: identical reports.
	in := Input{Designs: map[string]QueryDesign{}, Judged: map[string]map[string]int{}, Runs: runs, Specs: specs}
	whole := SampleConfig{Strata: []RankStratum{{From: 1, To: 1000, Rate: 1}}}
	for q, qi := range inputs {
		in.Designs[q] = Draw(qi, whole, rand.New(rand.NewPCG(1, 2)))
		in.Judged[q] = gold[q]
	}
	a := Estimate(in)
	in.PoolSparse = true
	b := Estimate(in)
	if a.RelevantTotal != b.RelevantTotal || a.Runs[0].Means["recall@100"] != b.Runs[0].Means["recall@100"] || len(b.Pooled) != 0 {
		t.Errorf("certainty design: pooled %+v differs from per-query %+v", b.RelevantTotal, a.RelevantTotal)
	}
}
