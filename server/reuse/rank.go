// Package reuse measures how far a project's conclusions depend on its
// judgments (issue 24, items 3 and 4): the reusability of a pool for runs
// that did not contribute to it (Zobel 1998 leave-one-run-out, and leave
// one method family out) and the stability of the ranking of the runs
// under another consensus, another annotator (Voorhees 2000) and another
// sample of queries. Reusability and Stability are pure; load.go reads
// their input from the database.
package reuse

import (
	"math"
	"slices"
	"sort"

	"boolpool/server/estimate"
	"boolpool/server/metrics"
)

// Run is one run: its name, its method family and its ranking per query
// (query ext id → document ids, best first).
type Run struct {
	Name   string
	Family string
	Ranked map[string][]string
}

// scores holds every run's value of every measure on every query:
// v[m][r][q] for measure names[m], runs[r], queries[q]; NaN where the
// measure is undefined for the query.
type scores struct {
	queries []string
	names   []string
	v       [][][]float64
}

// score evaluates every run on every query of queries against qrels; a run
// without a ranking for a query scores it as an empty ranking (trec_eval
// -c), so every run is averaged over the same queries.
func score(runs []Run, queries []string, qrels metrics.Qrels, specs []metrics.Spec, minRel int) scores {
	s := scores{queries: queries, names: specNames(specs), v: make([][][]float64, len(specs))}
	for m := range specs {
		s.v[m] = make([][]float64, len(runs))
		for r := range runs {
			s.v[m][r] = make([]float64, len(queries))
		}
	}
	for qi, q := range queries {
		s.set(runs, qi, qrels[q], specs, minRel)
	}
	return s
}

// set scores every run on query qi against judged.
func (s scores) set(runs []Run, qi int, judged map[string]int, specs []metrics.Spec, minRel int) {
	if judged == nil {
		judged = map[string]int{}
	}
	q := s.queries[qi]
	for r, run := range runs {
		vals := metrics.EvaluateQuery(run.Ranked[q], judged, nil, specs, minRel)
		for m, name := range s.names {
			v, ok := vals[name]
			if !ok {
				v = math.NaN()
			}
			s.v[m][r][qi] = v
		}
	}
}

// rescore is s with the queries in changed scored again against qrels;
// the other queries keep s's values.
func (s scores) rescore(runs []Run, changed map[string]bool, qrels metrics.Qrels, specs []metrics.Spec, minRel int) scores {
	out := scores{queries: s.queries, names: s.names, v: make([][][]float64, len(s.v))}
	for m := range s.v {
		out.v[m] = make([][]float64, len(runs))
		for r := range runs {
			out.v[m][r] = slices.Clone(s.v[m][r])
		}
	}
	for qi, q := range s.queries {
		if changed[q] {
			out.set(runs, qi, qrels[q], specs, minRel)
		}
	}
	return out
}

// means returns, per run name, the mean of measure m (an index into
// names) over the queries at the positions idx (repeats count as often as
// they occur; nil = every query once). A run with no value on any of them
// is left out.
func (s scores) means(runs []Run, m int, idx []int) map[string]float64 {
	out := make(map[string]float64, len(runs))
	for r, run := range runs {
		vals := s.v[m][r]
		sum, n := 0.0, 0
		if idx == nil {
			for _, v := range vals {
				if !math.IsNaN(v) {
					sum += v
					n++
				}
			}
		} else {
			for _, qi := range idx {
				if v := vals[qi]; !math.IsNaN(v) {
					sum += v
					n++
				}
			}
		}
		if n > 0 {
			out[run.Name] = sum / float64(n)
		}
	}
	return out
}

// Ranks returns each run's rank (1 = highest mean) in the order runs are
// ranked here: mean descending, ties by name.
func Ranks(means map[string]float64) map[string]int {
	names := make([]string, 0, len(means))
	for n := range means {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := means[names[i]], means[names[j]]
		if a != b {
			return a > b
		}
		return names[i] < names[j]
	})
	out := make(map[string]int, len(names))
	for i, n := range names {
		out[n] = i + 1
	}
	return out
}

// corr compares two rankings of the runs (truth is τ_AP's reference):
// both nil when undefined, that is with fewer than two runs in both or
// when either scoring ties every run.
func corr(truth, other map[string]float64) RankCorr {
	var common []string
	for n := range truth {
		if _, ok := other[n]; ok {
			common = append(common, n)
		}
	}
	if len(common) < 2 || allTied(truth, common) || allTied(other, common) {
		return RankCorr{}
	}
	return RankCorr{KendallTau: finite(estimate.KendallTau(truth, other)), TauAP: finite(estimate.TauAP(truth, other))}
}

// allTied reports whether m gives every name the same value.
func allTied(m map[string]float64, names []string) bool {
	for _, n := range names[1:] {
		if m[n] != m[names[0]] {
			return false
		}
	}
	return true
}

// finite returns &v, or nil for NaN or ±Inf (undefined in JSON).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// qrelsQueries lists the queries with at least one label, sorted.
func qrelsQueries(q metrics.Qrels) []string {
	out := make([]string, 0, len(q))
	for id, docs := range q {
		if len(docs) > 0 {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// specNames returns the specs' names.
func specNames(specs []metrics.Spec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.String()
	}
	return out
}
