package metrics

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Spec names one measure and its cutoff, written "name@k" (e.g. "ndcg@10").
type Spec struct {
	Name string // one of the Measure* constants
	K    int    // cutoff; 0 = whole ranking
}

// Measure names accepted by ParseSpec.
const (
	MeasureMRR       = "mrr"
	MeasureNDCG      = "ndcg"
	MeasureP         = "p"
	MeasureRecall    = "recall"
	MeasureMRecall   = "mrecall"
	MeasureJudged    = "judged"
	MeasureF1        = "f1"
	MeasureNegRecall = "negrecall"
	MeasureViolation = "violation"
)

// needsK lists measures meaningless without a cutoff.
var needsK = map[string]bool{MeasureP: true, MeasureMRecall: true, MeasureJudged: true, MeasureNegRecall: true}

var known = map[string]bool{
	MeasureMRR: true, MeasureNDCG: true, MeasureP: true, MeasureRecall: true, MeasureMRecall: true,
	MeasureJudged: true, MeasureF1: true, MeasureNegRecall: true, MeasureViolation: true,
}

// DefaultSpecs is the measure list used when none is given.
const DefaultSpecs = "mrr@10,ndcg@10,p@10,recall@100,mrecall@100,judged@10"

func (s Spec) String() string {
	if s.K <= 0 {
		return s.Name
	}
	return s.Name + "@" + strconv.Itoa(s.K)
}

// NeedsNegatives reports whether the measure is computed from explicit
// negatives.
func (s Spec) NeedsNegatives() bool {
	return s.Name == MeasureNegRecall || s.Name == MeasureViolation
}

// ParseSpec parses "name@k" or "name"; names are case-insensitive and
// "P@10", "nDCG@10", "RR@10" and "ndcg_cut_10"/"P_10"/"recall_100" (trec_eval
// spellings) are accepted too.
func ParseSpec(s string) (Spec, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	name, kText, hasK := strings.Cut(t, "@")
	if !hasK {
		// trec_eval style: ndcg_cut_10, p_10, recall_100
		if i := strings.LastIndexByte(t, '_'); i > 0 {
			if _, err := strconv.Atoi(t[i+1:]); err == nil {
				name, kText, hasK = t[:i], t[i+1:], true
			}
		}
	}
	switch name {
	case "rr", "recip_rank":
		name = MeasureMRR
	case "ndcg_cut":
		name = MeasureNDCG
	}
	if !known[name] {
		return Spec{}, fmt.Errorf("unknown measure %q", s)
	}
	k := 0
	if hasK {
		n, err := strconv.Atoi(kText)
		if err != nil || n <= 0 {
			return Spec{}, fmt.Errorf("measure %q: cutoff must be a positive integer", s)
		}
		k = n
	}
	if k == 0 && needsK[name] {
		return Spec{}, fmt.Errorf("measure %q needs a cutoff, e.g. %s@10", s, name)
	}
	return Spec{Name: name, K: k}, nil
}

// ParseSpecs parses a comma-separated list, dropping repeats.
func ParseSpecs(list string) ([]Spec, error) {
	var out []Spec
	seen := map[Spec]bool{}
	for _, part := range strings.Split(list, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		s, err := ParseSpec(part)
		if err != nil {
			return nil, err
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no measures in %q", list)
	}
	return out, nil
}

// Options tune Evaluate.
type Options struct {
	// MinRel is the lowest grade counted as relevant (trec_eval -l); 0 means
	// the default, 1.
	MinRel int
	// Negatives maps query id → explicit negative docids, for negrecall and
	// violation.
	Negatives map[string]map[string]bool
	// Complete also scores queries that are in the qrels but not in the run,
	// as empty rankings (trec_eval -c).
	Complete bool
}

func (o Options) minRel() int {
	if o.MinRel == 0 {
		return 1
	}
	return o.MinRel
}

// Result holds per-query values and their means, keyed by Spec.String().
// A query lacks a measure it is not defined for (negrecall and violation on
// queries without negatives); Count says how many queries each mean is over,
// and a mean over no query is absent.
type Result struct {
	PerQuery map[string]map[string]float64
	Mean     map[string]float64
	Count    map[string]int
}

// EvaluateQuery computes the specs for one query. Measures undefined for
// the query are absent from the returned map.
func EvaluateQuery(ranked []string, judged map[string]int, negatives map[string]bool, specs []Spec, minRel int) map[string]float64 {
	out := make(map[string]float64, len(specs))
	for _, s := range specs {
		var v float64
		ok := true
		switch s.Name {
		case MeasureMRR:
			v = ReciprocalRank(ranked, judged, minRel, s.K)
		case MeasureNDCG:
			v = NDCG(ranked, judged, s.K)
		case MeasureP:
			v = Precision(ranked, judged, minRel, s.K)
		case MeasureRecall:
			v = Recall(ranked, judged, minRel, s.K)
		case MeasureMRecall:
			v = MRecall(ranked, judged, minRel, s.K)
		case MeasureJudged:
			v = Judged(ranked, judged, s.K)
		case MeasureF1:
			v = SetF1(cut(ranked, s.K), judged, minRel)
		case MeasureNegRecall:
			v, ok = NegRecall(ranked, negatives, s.K)
		case MeasureViolation:
			v, ok = Violation(ranked, judged, minRel, negatives, s.K)
		default:
			ok = false
		}
		if ok {
			out[s.String()] = v
		}
	}
	return out
}

// Evaluate scores a ranked run against qrels. See the package doc for which
// queries are averaged.
func Evaluate(qrels Qrels, run Ranked, specs []Spec, opt Options) Result {
	res := Result{
		PerQuery: map[string]map[string]float64{},
		Mean:     map[string]float64{},
		Count:    map[string]int{},
	}
	minRel := opt.minRel()
	for q, judged := range qrels {
		ranked, inRun := run[q]
		if !inRun && !opt.Complete {
			continue
		}
		res.PerQuery[q] = EvaluateQuery(ranked, judged, opt.Negatives[q], specs, minRel)
	}
	sums := map[string]float64{}
	// Sum in sorted query order so means are bit-for-bit reproducible.
	for _, q := range SortedKeys(res.PerQuery) {
		for name, v := range res.PerQuery[q] {
			sums[name] += v
			res.Count[name]++
		}
	}
	for name, s := range sums {
		res.Mean[name] = s / float64(res.Count[name])
	}
	return res
}

// Values returns one measure's per-query values (queries lacking it are
// skipped).
func (r Result) Values(measure string) map[string]float64 {
	out := map[string]float64{}
	for q, m := range r.PerQuery {
		if v, ok := m[measure]; ok {
			out[q] = v
		}
	}
	return out
}

// SortedKeys returns the keys of m in byte order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
