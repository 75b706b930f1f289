package reuse

import (
	"math"
	"sort"

	"boolpool/server/metrics"
)

// PoolItem is one item of a pool: its query, its document and the runs
// that contributed it (run name → rank within the pool depth). An item
// without sources (found by cal or a probe alone) is no run's.
type PoolItem struct {
	Query   string
	Doc     string
	Sources map[string]int
}

// ReuseInput is what Reusability works on: the pool's items, the
// project's consensus qrels (query → document → grade), every run to
// rank, the measures and the lowest relevant grade.
type ReuseInput struct {
	Pool   string
	Runs   []Run
	Items  []PoolItem
	Qrels  metrics.Qrels
	Specs  []metrics.Spec
	MinRel int
}

// Reusability runs the leave-out tests (Zobel 1998). For each run that
// contributed to the pool (in name order), the qrels lose the judged
// documents that run alone contributed to their query's pool; every run is
// scored again over the same queries, and the report gives the left-out
// run's means and ranks with and without them, Kendall's τ and τ_AP
// between the whole rankings, and its Judged@10 under the reduced qrels.
// Leaving a method family out removes the documents only its runs
// contributed, and reports each of its runs.
func Reusability(in ReuseInput) ReusabilityReport {
	queries := qrelsQueries(in.Qrels)
	full := score(in.Runs, queries, in.Qrels, in.Specs, in.MinRel)
	out := ReusabilityReport{Pool: in.Pool, Queries: len(queries), Measures: specNames(in.Specs),
		LeaveOneRun: []LeaveOut{}, LeaveOneFamily: []LeaveOut{},
		MaxAbsChange: map[string]float64{}, MaxAbsChangeFamily: map[string]float64{}}

	fullMeans := map[string]map[string]float64{}
	for mi, m := range out.Measures {
		fullMeans[m] = full.means(in.Runs, mi, nil)
	}
	contributed, unique := map[string]int{}, map[string]int{}
	for _, it := range in.Items {
		for r := range it.Sources {
			contributed[r]++
		}
		if len(it.Sources) == 1 {
			for r := range it.Sources {
				unique[r]++
			}
		}
	}
	family := map[string]string{}
	for _, r := range in.Runs {
		family[r.Name] = r.Family
		if family[r.Name] == "" {
			family[r.Name] = r.Name
		}
		rr := ReuseRun{Name: r.Name, Family: family[r.Name], Contributed: contributed[r.Name], Unique: unique[r.Name], Mean: map[string]float64{}}
		for _, m := range out.Measures {
			if v, ok := fullMeans[m][r.Name]; ok {
				rr.Mean[m] = v
			}
		}
		out.Runs = append(out.Runs, rr)
	}
	sort.Slice(out.Runs, func(i, j int) bool { return out.Runs[i].Name < out.Runs[j].Name })

	// Leave one run out: every run named as a source that is also scored.
	var contributors []string
	for _, r := range out.Runs {
		if r.Contributed > 0 {
			contributors = append(contributors, r.Name)
		}
	}
	for _, name := range contributors {
		lo := in.leaveOut(name, []string{name}, full, fullMeans)
		out.LeaveOneRun = append(out.LeaveOneRun, lo)
		maxChange(out.MaxAbsChange, lo)
	}

	// Leave one family out: the families of the contributing runs, each
	// with all its scored runs.
	members := map[string][]string{}
	for _, r := range out.Runs {
		members[r.Family] = append(members[r.Family], r.Name)
	}
	seen := map[string]bool{}
	var families []string
	for _, name := range contributors {
		if f := family[name]; !seen[f] {
			seen[f] = true
			families = append(families, f)
		}
	}
	sort.Strings(families)
	for _, f := range families {
		lo := in.leaveOut(f, members[f], full, fullMeans)
		out.LeaveOneFamily = append(out.LeaveOneFamily, lo)
		maxChange(out.MaxAbsChangeFamily, lo)
	}
	return out
}

// leaveOut scores every run with the qrels minus the judged documents that
// only the runs left contributed to their query's pool.
func (in ReuseInput) leaveOut(label string, left []string, full scores, fullMeans map[string]map[string]float64) LeaveOut {
	queries := full.queries
	isLeft := map[string]bool{}
	for _, r := range left {
		isLeft[r] = true
	}
	reduced := make(metrics.Qrels, len(in.Qrels))
	for q, docs := range in.Qrels {
		reduced[q] = docs
	}
	lo := LeaveOut{LeftOut: label, Runs: left, JudgedAt10: map[string]float64{}, Measures: map[string]LeaveOutMeasure{}}
	copied := map[string]bool{}
	for _, it := range in.Items {
		if len(it.Sources) == 0 {
			continue
		}
		only := true
		for r := range it.Sources {
			if !isLeft[r] {
				only = false
				break
			}
		}
		if !only {
			continue
		}
		g, judged := reduced[it.Query][it.Doc]
		if !judged {
			continue
		}
		if !copied[it.Query] { // copy on first write: in.Qrels stays whole
			m := make(map[string]int, len(reduced[it.Query]))
			for d, v := range reduced[it.Query] {
				m[d] = v
			}
			reduced[it.Query] = m
			copied[it.Query] = true
		}
		delete(reduced[it.Query], it.Doc)
		lo.Removed++
		if g >= in.MinRel {
			lo.RemovedRelevant++
		}
	}
	without := full.rescore(in.Runs, copied, reduced, in.Specs, in.MinRel)
	for _, r := range in.Runs {
		if !isLeft[r.Name] {
			continue
		}
		sum, n := 0.0, 0
		for _, q := range queries {
			if ranked, ok := r.Ranked[q]; ok {
				sum += metrics.Judged(ranked, reduced[q], 10)
				n++
			}
		}
		if n > 0 {
			lo.JudgedAt10[r.Name] = sum / float64(n)
		}
	}
	for mi, m := range full.names {
		with := fullMeans[m]
		wo := without.means(in.Runs, mi, nil)
		c := corr(with, wo)
		lm := LeaveOutMeasure{KendallTau: c.KendallTau, TauAP: c.TauAP, Runs: []RunChange{}}
		rw, rwo := Ranks(with), Ranks(wo)
		for _, name := range left {
			a, okA := with[name]
			b, okB := wo[name]
			if !okA || !okB {
				continue
			}
			lm.Runs = append(lm.Runs, RunChange{Run: name, With: a, Without: b, Change: b - a, RankWith: rw[name], RankWithout: rwo[name]})
		}
		lo.Measures[m] = lm
	}
	return lo
}

// maxChange raises acc[measure] to the largest |change| of lo's runs.
func maxChange(acc map[string]float64, lo LeaveOut) {
	for m, lm := range lo.Measures {
		if _, ok := acc[m]; !ok {
			acc[m] = 0
		}
		for _, rc := range lm.Runs {
			acc[m] = math.Max(acc[m], math.Abs(rc.Change))
		}
	}
}
