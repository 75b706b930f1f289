package main

import (
	"context"
	"fmt"
	"os"

	"boolpool/server/evalsim"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

func main() {
	ctx := context.Background()
	st, err := store.Open(ctx, os.Getenv("DATABASE_URL"), 4)
	if err != nil {
		panic(err)
	}
	p, err := st.ProjectByName(ctx, "val")
	if err != nil {
		panic(err)
	}
	names := []string{"bm25", "bm25-strict-boolean", "pnorm", "sparse-disentangled-negation", "sparse-maxpool-union", "sparse-cpt", "dense-vanilla", "dense-decomposed", "dense-algebra", "rrf-lexical", "rrf-lexical-dense"}
	runs, _ := pooling.LoadRuns(ctx, st, p.ID, names)
	rel, _ := pooling.StoredRelevant(ctx, st, p.ID)
	qs, _ := retrieval.LoadQueries(ctx, st, p.ID, "val")
	ix, _ := retrieval.LoadLexical(ctx, st, p.ID, nil)
	proxy, _ := evalsim.ProxyRanking(ctx, ix, qs, 20000)
	bounds := []int{1, 5, 10, 20, 50, 100, 300, 1000}
	cnt := make([]int, len(bounds)+3)
	pop := make([]int, len(bounds)+3)
	for _, q := range qs {
		best := map[string]int{}
		for _, r := range runs {
			for i, d := range r.Lists[q.ID] {
				if b, ok := best[d]; !ok || i+1 < b {
					best[d] = i + 1
				}
			}
		}
		bin := func(r int) int {
			for i, b := range bounds {
				if r <= b {
					return i
				}
			}
			return len(bounds)
		}
		for d, r := range best {
			pop[bin(r)]++
			if rel[q.ID][d] {
				cnt[bin(r)]++
			}
		}
		for i, d := range proxy[q.ID] {
			if _, ok := best[d]; ok {
				continue
			}
			k := len(bounds)
			if i >= 5000 {
				k++
			}
			pop[k]++
			if rel[q.ID][d] {
				cnt[k]++
			}
		}
	}
	tot := 0
	for q := range rel {
		tot += len(rel[q])
	}
	fmt.Println("gold", tot)
	for i := range cnt {
		l := "proxy<=5000"
		if i < len(bounds) {
			l = fmt.Sprintf("best rank <= %d", bounds[i])
		} else if i == len(bounds)+1 {
			l = "proxy 5001-20000"
		} else if i == len(bounds)+2 {
			l = "rest"
		}
		fmt.Printf("%-20s gold %5d pop %8d density %.4f\n", l, cnt[i], pop[i], float64(cnt[i])/float64(max(pop[i], 1)))
	}
}
