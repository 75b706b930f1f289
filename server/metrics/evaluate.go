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
	MeasureNegAbove  = "negabove"
	MeasureNevIR     = "nevir"
	MeasureAP        = "ap"
)

// needsK lists measures meaningless without a cutoff.
var needsK = map[string]bool{MeasureP: true, MeasureMRecall: true, MeasureJudged: true, MeasureNegRecall: true}

var known = map[string]bool{
	MeasureMRR: true, MeasureNDCG: true, MeasureP: true, MeasureRecall: true, MeasureMRecall: true,
	MeasureJudged: true, MeasureF1: true, MeasureNegRecall: true, MeasureViolation: true,
	MeasureNegAbove: true, MeasureNevIR: true, MeasureAP: true,
}

// noK lists measures that take no cutoff.
var noK = map[string]bool{MeasureNevIR: true}

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
	return s.Name == MeasureNegRecall || s.Name == MeasureViolation || s.Name == MeasureNegAbove
}

// NeedsPairs reports whether the measure is computed from NevIR pairs
// (Options.NevIRPairs).
func (s Spec) NeedsPairs() bool { return s.Name == MeasureNevIR }

// ParseSpec parses "name@k" or "name"; names are case-insensitive and
// "P@10", "nDCG@10", "RR@10", "MAP" and "ndcg_cut_10"/"P_10"/"recall_100"/
// "map_cut_100" (trec_eval spellings) are accepted too.
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
	case "map", "map_cut":
		name = MeasureAP
	case "nevir-accuracy", "pairwise":
		name = MeasureNevIR
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
	if k > 0 && noK[name] {
		return Spec{}, fmt.Errorf("measure %q takes no cutoff (write %s)", s, name)
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
	// as empty rankings (trec_eval -c), and every NevIR pair.
	Complete bool
	// NevIRPairs are the pairs the nevir measure is computed over.
	NevIRPairs []NevIRPair
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
	// Missing counts the qrels queries without any line in the run: left
	// out of the means, or scored as empty rankings with Options.Complete.
	Missing int
	// Duplicates counts run lines dropped because their docid was already
	// listed for the query (EvaluateRun only).
	Duplicates int
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
		case MeasureAP:
			v = AveragePrecision(ranked, judged, minRel, s.K)
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
// queries are averaged. Without scores, negabove compares rank positions
// (a document's score is minus its rank).
func Evaluate(qrels Qrels, run Ranked, specs []Spec, opt Options) Result {
	return evaluate(qrels, run, nil, specs, opt)
}

// EvaluateRun ranks a run as trec_eval does (Rank) and scores it against
// qrels: the evaluator behind both `boolpool eval` and `boolpool retrieve
// eval`. negabove compares the run's scores.
func EvaluateRun(qrels Qrels, run Run, specs []Spec, opt Options) Result {
	ranked := make(Ranked, len(run))
	scores := make(map[string]map[string]float64, len(run))
	dups := 0
	for q, docs := range run {
		r, d := Rank(docs)
		ranked[q] = r
		dups += d
		s := make(map[string]float64, len(docs))
		for _, sd := range docs {
			if _, seen := s[sd.DocID]; !seen {
				s[sd.DocID] = sd.Score
			}
		}
		scores[q] = s
	}
	res := evaluate(qrels, ranked, scores, specs, opt)
	res.Duplicates = dups
	return res
}

func evaluate(qrels Qrels, run Ranked, scores map[string]map[string]float64, specs []Spec, opt Options) Result {
	res := Result{
		PerQuery: map[string]map[string]float64{},
		Mean:     map[string]float64{},
		Count:    map[string]int{},
	}
	minRel := opt.minRel()
	var negAbove, nevir []Spec
	for _, s := range specs {
		switch s.Name {
		case MeasureNegAbove:
			negAbove = append(negAbove, s)
		case MeasureNevIR:
			nevir = append(nevir, s)
		}
	}
	for q, judged := range qrels {
		ranked, inRun := run[q]
		if !inRun {
			res.Missing++
			if !opt.Complete {
				continue
			}
		}
		vals := EvaluateQuery(ranked, judged, opt.Negatives[q], specs, minRel)
		for _, s := range negAbove {
			sc := scores[q]
			if sc == nil {
				sc = rankScores(ranked)
			}
			if v, ok := NegAbove(ranked, sc, judged, minRel, opt.Negatives[q], s.K); ok {
				vals[s.String()] = v
			}
		}
		res.PerQuery[q] = vals
	}
	// A NevIR pair's outcome goes on its first query's row, so the mean
	// over queries is the pairwise accuracy.
	for _, s := range nevir {
		for _, p := range opt.NevIRPairs {
			_, in1 := run[p.Query1]
			_, in2 := run[p.Query2]
			if !opt.Complete && !(in1 && in2) {
				continue
			}
			v := 0.0
			if NevIRPairCorrect(run, p) {
				v = 1
			}
			if res.PerQuery[p.Query1] == nil {
				res.PerQuery[p.Query1] = map[string]float64{}
			}
			res.PerQuery[p.Query1][s.String()] = v
		}
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

// rankScores stands in for scores when only the ranking is known: minus
// the rank, so a better rank is a higher score and there are no ties.
func rankScores(ranked []string) map[string]float64 {
	out := make(map[string]float64, len(ranked))
	for i, d := range ranked {
		out[d] = -float64(i + 1)
	}
	return out
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
