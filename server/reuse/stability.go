package reuse

import (
	"math/rand/v2"
	"sort"

	"boolpool/server/metrics"
)

// Vote is one annotator's current label of an item.
type Vote struct {
	Annotator string
	Label     int
}

// JudgedItem is one relevance item with its labels: the majority
// consensus and the Dawid–Skene one (-1: none) and every current vote.
type JudgedItem struct {
	Query      string
	Doc        string
	Majority   int
	DawidSkene int
	Votes      []Vote
}

// StabilityInput is what Stability works on.
type StabilityInput struct {
	Pool      string
	Runs      []Run
	Items     []JudgedItem
	Specs     []metrics.Spec
	MinRel    int
	Resamples int    // query bootstrap resamples (0: none)
	Seed      uint64 // of the bootstrap
}

// Stability compares rankings of the runs, per measure, by Kendall's τ
// and τ_AP: under the majority consensus (the reference) and Dawid–Skene,
// over the queries with a majority label; under each annotator's own
// labels and the majority, both over the queries that annotator judged
// (Voorhees 2000); and under each query bootstrap resample and all
// queries.
func Stability(in StabilityInput) StabilityReport {
	majority, ds := metrics.Qrels{}, metrics.Qrels{}
	byAnnotator := map[string]metrics.Qrels{}
	judgments := map[string]int{}
	differ, both := 0, 0
	set := func(q metrics.Qrels, query, doc string, g int) {
		if q[query] == nil {
			q[query] = map[string]int{}
		}
		q[query][doc] = g
	}
	for _, it := range in.Items {
		if it.Majority >= 0 {
			set(majority, it.Query, it.Doc, it.Majority)
		}
		if it.DawidSkene >= 0 {
			set(ds, it.Query, it.Doc, it.DawidSkene)
		}
		if it.Majority >= 0 || it.DawidSkene >= 0 {
			both++
			if (it.Majority >= in.MinRel) != (it.DawidSkene >= in.MinRel) || (it.Majority < 0) != (it.DawidSkene < 0) {
				differ++
			}
		}
		for _, v := range it.Votes {
			if byAnnotator[v.Annotator] == nil {
				byAnnotator[v.Annotator] = metrics.Qrels{}
			}
			set(byAnnotator[v.Annotator], it.Query, it.Doc, v.Label)
			judgments[v.Annotator]++
		}
	}
	queries := qrelsQueries(majority)
	names := specNames(in.Specs)
	out := StabilityReport{Pool: in.Pool, Queries: len(queries), Measures: names, Runs: []string{},
		Consensus:  ConsensusStability{Items: both, Differ: differ, Measures: map[string]RankCorr{}},
		Annotators: []AnnotatorStability{},
		Bootstrap:  BootstrapStability{Resamples: in.Resamples, Seed: in.Seed, Measures: map[string]BootstrapTau{}}}
	for _, r := range in.Runs {
		out.Runs = append(out.Runs, r.Name)
	}
	sort.Strings(out.Runs)

	full := score(in.Runs, queries, majority, in.Specs, in.MinRel)
	dsScores := score(in.Runs, queries, ds, in.Specs, in.MinRel)
	fullMeans := map[string]map[string]float64{}
	for mi, m := range names {
		fullMeans[m] = full.means(in.Runs, mi, nil)
		out.Consensus.Measures[m] = corr(fullMeans[m], dsScores.means(in.Runs, mi, nil))
	}

	annotators := make([]string, 0, len(byAnnotator))
	for a := range byAnnotator {
		annotators = append(annotators, a)
	}
	sort.Strings(annotators)
	for _, a := range annotators {
		own := byAnnotator[a]
		qs := qrelsQueries(own)
		cons := score(in.Runs, qs, majority, in.Specs, in.MinRel)
		mine := score(in.Runs, qs, own, in.Specs, in.MinRel)
		as := AnnotatorStability{Annotator: a, Judgments: judgments[a], Queries: len(qs), Measures: map[string]RankCorr{}}
		for mi, m := range names {
			as.Measures[m] = corr(cons.means(in.Runs, mi, nil), mine.means(in.Runs, mi, nil))
		}
		out.Annotators = append(out.Annotators, as)
	}

	taus := make(map[string][]float64, len(names))
	tauAPs := make(map[string][]float64, len(names))
	if in.Resamples > 0 && len(queries) > 0 {
		rng := rand.New(rand.NewPCG(in.Seed, 0x9e3779b97f4a7c15))
		idx := make([]int, len(queries))
		for b := 0; b < in.Resamples; b++ {
			for i := range idx {
				idx[i] = rng.IntN(len(queries))
			}
			for mi, m := range names {
				c := corr(fullMeans[m], full.means(in.Runs, mi, idx))
				if c.KendallTau != nil {
					taus[m] = append(taus[m], *c.KendallTau)
				}
				if c.TauAP != nil {
					tauAPs[m] = append(tauAPs[m], *c.TauAP)
				}
			}
		}
	}
	for _, m := range names {
		out.Bootstrap.Measures[m] = BootstrapTau{MeanTau: mean(taus[m]), P5Tau: quantile(taus[m], 0.05), MeanTauAP: mean(tauAPs[m])}
	}
	return out
}

// mean of xs (nil when empty).
func mean(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return finite(s / float64(len(xs)))
}

// quantile is the type 7 (linear interpolation) p-quantile of xs (nil
// when empty).
func quantile(xs []float64, p float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return finite(metrics.Quantile(s, p))
}
