package reuse

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"boolpool/server/metrics"
)

// synthetic is a project of the size (10 runs × 238 queries):
// each run ranks 100 of a query's 300 documents, the depth-10 pool is
// judged (30% relevant), and two annotators label every pooled document,
// the second disagreeing on one in ten.
func synthetic(b *testing.B) (ReuseInput, StabilityInput) {
	rng := rand.New(rand.NewPCG(1, 2))
	var runs []Run
	families := []string{"lexical", "sparse", "dense", "fusion"}
	for r := range 10 {
		runs = append(runs, Run{Name: fmt.Sprintf("run%02d", r), Family: families[r%4], Ranked: map[string][]string{}})
	}
	qrels := metrics.Qrels{}
	var items []PoolItem
	var judged []JudgedItem
	for q := range 238 {
		qid := fmt.Sprintf("q%03d", q)
		at := map[string]int{}
		for r := range runs {
			perm := rng.Perm(300)[:100]
			docs := make([]string, len(perm))
			for i, d := range perm {
				docs[i] = fmt.Sprintf("d%d", d)
			}
			runs[r].Ranked[qid] = docs
			for i, d := range docs[:10] {
				k, ok := at[d]
				if !ok {
					k = len(items)
					at[d] = k
					items = append(items, PoolItem{Query: qid, Doc: d, Sources: map[string]int{}})
				}
				items[k].Sources[runs[r].Name] = i + 1
			}
		}
		qrels[qid] = map[string]int{}
		for d := range at {
			g := 0
			if rng.Float64() < .3 {
				g = 2
			}
			qrels[qid][d] = g
			other := g
			if rng.IntN(10) == 0 {
				other = 2 - g
			}
			judged = append(judged, JudgedItem{Query: qid, Doc: d, Majority: g, DawidSkene: g,
				Votes: []Vote{{Annotator: "a", Label: g}, {Annotator: "b", Label: other}}})
		}
	}
	specs, err := metrics.ParseSpecs("ndcg@10,p@10,recall@100")
	if err != nil {
		b.Fatal(err)
	}
	return ReuseInput{Runs: runs, Items: items, Qrels: qrels, Specs: specs, MinRel: 2},
		StabilityInput{Runs: runs, Items: judged, Specs: specs, MinRel: 2, Resamples: 1000, Seed: 1}
}

func BenchmarkReusability(b *testing.B) {
	in, _ := synthetic(b)
	b.ResetTimer()
	for range b.N {
		Reusability(in)
	}
}

func BenchmarkStability(b *testing.B) {
	_, in := synthetic(b)
	b.ResetTimer()
	for range b.N {
		Stability(in)
	}
}
