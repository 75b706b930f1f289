package decompose

import (
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"sort"
)

// queryHash is FNV-1a 64 of a query's text: the order in which the
// stratified split and the cross-validation folds take a template's
// queries.
func queryHash(query string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, query)
	return h.Sum64()
}

// byTemplate groups items by gold template, each group in query-hash
// order (ties by text), the groups in template-name order.
func byTemplate(items []Gold) [][]Gold {
	groups := map[string][]Gold{}
	for _, g := range items {
		groups[g.Template] = append(groups[g.Template], g)
	}
	names := make([]string, 0, len(groups))
	for t := range groups {
		names = append(names, t)
	}
	sort.Strings(names)
	out := make([][]Gold, 0, len(names))
	for _, t := range names {
		gs := groups[t]
		sort.SliceStable(gs, func(i, j int) bool {
			hi, hj := queryHash(gs[i].Query), queryHash(gs[j].Query)
			if hi != hj {
				return hi < hj
			}
			return gs[i].Query < gs[j].Query
		})
		out = append(out, gs)
	}
	return out
}

// SplitHeldOut holds out percent of the items of every gold template
// (rounded to the nearest item): within a template, the queries with the
// smallest FNV-1a 64 hash of their text. The split depends only on the
// items' texts and templates.
func SplitHeldOut(items []Gold, percent int) (train, heldOut []Gold) {
	for _, gs := range byTemplate(items) {
		n := int(math.Round(float64(len(gs)) * float64(percent) / 100))
		heldOut = append(heldOut, gs[:n]...)
		train = append(train, gs[n:]...)
	}
	return train, heldOut
}

// StratifiedFolds deals the items into k folds, each template's queries
// in hash order round-robin, so every fold has the template mix of the
// whole.
func StratifiedFolds(items []Gold, k int) [][]Gold {
	folds := make([][]Gold, k)
	i := 0
	for _, gs := range byTemplate(items) {
		for _, g := range gs {
			folds[i%k] = append(folds[i%k], g)
			i++
		}
	}
	return folds
}

// CrossValidate estimates the training recipe on all of quest: for each
// of k stratified folds it trains on the other folds plus extra (DebQUEST
// train, never evaluated here) and decomposes the fold; the report scores
// every QUEST query by a model that did not see it.
func CrossValidate(quest, extra []Gold, k int, opt TrainOptions) (Report, error) {
	if k < 2 {
		return Report{}, fmt.Errorf("decompose: cross-validation needs k ≥ 2, got %d", k)
	}
	folds := StratifiedFolds(quest, k)
	var evalItems []Gold
	preds := map[string]Result{}
	for f := range folds {
		var train []Gold
		for o := range folds {
			if o != f {
				train = append(train, folds[o]...)
			}
		}
		m, err := Train(append(train, extra...), opt)
		if err != nil {
			return Report{}, fmt.Errorf("fold %d: %w", f+1, err)
		}
		for _, g := range folds[f] {
			evalItems = append(evalItems, g)
			preds[g.Query] = m.Decompose(g.Query)
		}
	}
	return EvaluateWith(evalItems, func(q string) Result { return preds[q] }), nil
}

// Wilson returns the 95 % Wilson score interval of a proportion of
// correct out of n.
func Wilson(correct, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p, nn := float64(correct)/float64(n), float64(n)
	d := 1 + z*z/nn
	c := (p + z*z/(2*nn)) / d
	h := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / d
	return c - h, c + h
}
